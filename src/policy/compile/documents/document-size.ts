import { ConfigError, jsonPath } from '../config-error';
import { MAX_DOCUMENT_NODES, MAX_FILE_DEPTH } from './document-limits';
import { isPlainObject } from './plain-object';

type Segment = string | number;

/** Thrown inside the walk and given the path on its way out, so that the walk keeps no path per value. */
class Refusal {
  readonly at: Segment[] = [];
  readonly holders: object[] = [];
  constructor(readonly kind: 'values' | 'depth') {}
}

/**
 * Counts the values of a file's document as a reader that walks it would meet them: an object or
 * list reached through several YAML aliases (js-yaml shares one object) counts once per use.
 * Refuses, with a ConfigError naming the file and the limit, a document over MAX_DOCUMENT_NODES
 * values or nested deeper than MAX_FILE_DEPTH, and one that holds itself (a YAML alias inside its
 * own anchor). The walk stops at the limit, so it costs at most that many steps whatever the
 * document, and bounds every later walk of it. (resolveRefs counts the same way as it resolves.)
 */
export function checkDocumentSize(value: unknown, file: string, what: string): void {
  let values = 0;
  const visit = (node: unknown, depth: number): void => {
    if (++values > MAX_DOCUMENT_NODES) throw new Refusal('values');
    // As js-yaml counts: the root is level 0, and a value at level MAX_FILE_DEPTH, even a string, is too deep.
    if (depth >= MAX_FILE_DEPTH) throw new Refusal('depth');
    if (!Array.isArray(node) && !isPlainObject(node)) return;
    let key: Segment = 0;
    try {
      if (Array.isArray(node)) {
        for (key = 0; key < node.length; key++) visit(node[key], depth + 1);
      } else {
        for (key of Object.keys(node)) visit(node[key], depth + 1);
      }
    } catch (error) {
      if (error instanceof Refusal) {
        error.at.push(key);
        error.holders.push(node);
      }
      throw error;
    }
  };
  try {
    visit(value, 0);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw refusalError(error, file, what);
  }
}

function refusalError(refusal: Refusal, file: string, what: string): ConfigError {
  const at = refusal.at.reverse();
  if (refusal.kind === 'values') {
    return new ConfigError(
      file,
      '$',
      `the ${what} holds more than ${MAX_DOCUMENT_NODES} values (the limit), counting each use of a YAML alias or $ref in full`,
      'make it smaller: a YAML alias or $ref used many times, or inside another that is, repeats what it names each time; write the parts that differ instead',
    );
  }
  // A walk that goes on for ever meets some object inside itself.
  const holders = refusal.holders.reverse();
  const repeat = holders.findIndex((holder, index) => holders.indexOf(holder) !== index);
  if (repeat !== -1) {
    const first = holders.indexOf(holders[repeat]!);
    return new ConfigError(
      file,
      jsonPath(at.slice(0, repeat)),
      `the value at ${jsonPath(at.slice(0, first))} is here again, inside itself (a YAML alias inside its own anchor)`,
      'replace the alias with what it should hold; a $ref may point back into its own target (a recursive schema)',
    );
  }
  return new ConfigError(file, jsonPath(at), `the ${what} is nested deeper than ${MAX_FILE_DEPTH} levels (the limit)`, 'flatten it: name deep parts under components and refer to them with $ref');
}
