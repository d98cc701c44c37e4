import type { GrantTable, OperationGrants } from './data-document';

/**
 * The grants of a data document are a table: one row per operation (its `grants` string), one
 * column per role, and in each cell `grant_width` characters naming an entry of `grant_sets`, or
 * dashes for nothing. `grant_offsets` gives where each role's cell starts in a row (its column
 * times the width), so that the policy finds it without arithmetic. A row is one string, so 1,000
 * roles x 1,000 operations are 1 MB of data that OPA holds in about as much memory; written as
 * nested objects they were 23 MB of JSON and 500 MB once parsed by OPA's Wasm build.
 */

/** Cell characters: printable ASCII that JSON writes unescaped, without the dash of empty cells; letters first, so small tables read well. */
const ALPHABET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...'!#$%&\'()*+,./:;<=>?@[]^_`{|}~'];
export const EMPTY_CELL_CHARACTER = '-';

/** The characters per cell needed to name `count` grant sets. */
function widthFor(count: number): number {
  let width = 1;
  while (ALPHABET.length ** width < count) width++;
  return width;
}

function cellName(index: number, width: number): string {
  let name = '';
  for (let i = 0; i < width; i++) {
    name = ALPHABET[index % ALPHABET.length]! + name;
    index = Math.floor(index / ALPHABET.length);
  }
  return name;
}

/**
 * Collects each operation's cells, naming every distinct grant set once, then writes the rows.
 * Rows and columns are numbers handed out by addRow and column, so that setting one of a large
 * ACL's million cells is an array write.
 */
export class GrantTableBuilder {
  private readonly operations: string[] = [];
  private readonly rows: Int32Array[] = [];
  private readonly setIndex = new Map<string, number>();
  private readonly sets: OperationGrants[] = [];
  private readonly columnOf = new Map<string, number>();

  constructor(private readonly columns: readonly string[]) {
    columns.forEach((role, index) => this.columnOf.set(role, index));
  }

  /** A row for `operation`, every cell empty until set; returns the row's number. */
  addRow(operation: string): number {
    this.operations.push(operation);
    return this.rows.push(new Int32Array(this.columns.length).fill(-1)) - 1;
  }

  /** The column of a role given to the constructor. */
  column(role: string): number {
    const column = this.columnOf.get(role);
    if (column === undefined) throw new Error(`the grant table has no column for role ${role}`);
    return column;
  }

  /** Grants `any` and `own` (attribute lists, or undefined for none) in one cell. */
  set(row: number, column: number, any: string[] | undefined, own: string[] | undefined): void {
    this.rows[row]![column] = this.indexOf(any, own);
  }

  build(): { table: GrantTable; rows: Map<string, string> } {
    const width = widthFor(this.sets.length);
    const names = this.sets.map((_, index) => cellName(index, width));
    const empty = EMPTY_CELL_CHARACTER.repeat(width);
    const rows = new Map<string, string>();
    this.rows.forEach((cells, row) => {
      const parts: string[] = new Array(cells.length);
      for (let i = 0; i < cells.length; i++) parts[i] = cells[i]! < 0 ? empty : names[cells[i]!]!;
      rows.set(this.operations[row]!, parts.join(''));
    });
    const table: GrantTable = {
      grant_offsets: Object.fromEntries(this.columns.map((role, index) => [role, index * width])),
      grant_width: width,
      grant_sets: Object.fromEntries(this.sets.map((grants, index) => [names[index]!, grants])),
    };
    return { table, rows };
  }

  private indexOf(any: string[] | undefined, own: string[] | undefined): number {
    const key = setKey(any, own);
    let index = this.setIndex.get(key);
    if (index === undefined) {
      // A copy: the lists may be the declaration's own, which its caller still holds.
      const copy: OperationGrants = {};
      if (any !== undefined) copy.any = [...any];
      if (own !== undefined) copy.own = [...own];
      index = this.sets.push(copy) - 1;
      this.setIndex.set(key, index);
    }
    return index;
  }
}

/**
 * A key that two grant sets share only when they are equal, cheap for the usual one-glob lists
 * (a million cells are looked up for 1,000 roles x 1,000 operations). Each list's part is
 * length-prefixed, so no glob can make one set's key read as another's.
 */
function setKey(anyList: string[] | undefined, ownList: string[] | undefined): string {
  const any = listKey(anyList);
  return `${any.length}:${any}${listKey(ownList)}`;
}

function listKey(list: string[] | undefined): string {
  if (list === undefined) return 'u';
  return list.length === 1 ? `s${list[0]!}` : `m${JSON.stringify(list)}`;
}

/** What `role` may do on the operation whose row this is, as the policy reads it; undefined for an empty cell or an unknown role. */
export function cellGrants(table: GrantTable, row: string, role: string): OperationGrants | undefined {
  if (!Object.hasOwn(table.grant_offsets, role)) return undefined;
  const start = table.grant_offsets[role]!;
  const cell = row.slice(start, start + table.grant_width);
  return Object.hasOwn(table.grant_sets, cell) ? table.grant_sets[cell] : undefined;
}
