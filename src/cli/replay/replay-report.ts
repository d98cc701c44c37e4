import { canonicalAttributes } from '../../policy/attributes/canonical-attributes';
import type { Decision } from '../../policy/evaluate/evaluator';
import type { DecisionChange } from '../../policy/evaluate/decision-change';
import { NOT_REPLAYABLE, SKIPPED, type NotReplayableReason, type SkipReason } from './classify-event';
import type { LeftOut } from './decision-log-files';
import type { Candidate } from './replay-candidate';

/** What a decision let the caller do, as the report shows it: never the input's claims or parameter values. */
export interface ShownDecision {
  allow: boolean;
  /** In canonical form (as svcgate diff prints them): the same fields, spelled one way. */
  attributes: string[];
  /** A list operation's plan kind (`all`, `some`, `none`); its values are claims and are left out. */
  list?: 'all' | 'none' | 'some';
}

/** One recorded request whose decision the candidate changes; found again in the logs by `decisionId` or `at`. */
export interface ReplayExample {
  decisionId: string | null;
  timestamp: string | null;
  /** `<file>:<line>`, or `<file>[<index>]` for an element of a JSON array. */
  at: string;
  operation: string;
  role: string;
  before: ShownDecision;
  after: ShownDecision;
}

export interface ChangeCounts {
  replayed: number;
  same: number;
  widened: number;
  narrowed: number;
  changed: number;
}

export interface ReplayReport {
  candidate: { from: Candidate['from']; file: string; revision: string; dataRevision: string };
  /** Files read; a folder's entries that were not read, with why (the first MAX_LISTED), and how many there were. */
  files: { read: number; leftOut: LeftOut[]; leftOutCount: number };
  /** Objects read from the logs: replayed, not replayable and skipped add up to it. */
  events: number;
  replayed: number;
  same: number;
  widened: number;
  narrowed: number;
  changed: number;
  notReplayable: Record<NotReplayableReason, number>;
  skipped: Record<SkipReason, number>;
  /** Lines and elements that are no event (not JSON, too long, not an object): counted, the first MAX_LISTED with where. */
  unreadable: { count: number; first: { at: string; problem: string }[] };
  /** Replayed events by operation and by role (the input's role claim; several roles sorted and joined with `,`; `anonymous` without one). */
  byOperation: Record<string, ChangeCounts>;
  byRole: Record<string, ChangeCounts>;
  /** Events of operations the candidate does not have, by operation. */
  unknownOperations: Record<string, number>;
  /** The first MAX_EXAMPLES of each kind of change. */
  examples: Record<DecisionChange, ReplayExample[]>;
}

/** Examples of each kind of change in the report. */
export const MAX_EXAMPLES = 5;
/** Unreadable entries and left-out files listed by name (all are counted). */
export const MAX_LISTED = 10;
/**
 * Roles and unknown operations come from the logs, so they are counted by name only up to this
 * many names; the rest are counted under OTHERS. The candidate's operations are all named.
 */
export const MAX_NAMES = 1000;
/** The most characters of a name from the logs kept and shown; a longer one is counted under its first ones and `...`. */
export const MAX_NAME_CHARS = 200;
export const OTHERS = '(others)';

/** The kinds of change, in the order reports list them. */
export const CHANGES: readonly DecisionChange[] = ['widened', 'narrowed', 'changed'];

/** One replayed event, as the tally counts it. */
export interface ReplayedEvent {
  operation: string;
  role: string;
  change: DecisionChange | undefined;
  example: () => ReplayExample;
}

/** Adds up the report as events are read, in bounded memory whatever the size of the logs. */
export class ReplayTally {
  private readonly report: ReplayReport;
  private readonly byOperation = new Map<string, ChangeCounts>();
  private readonly byRole = new Map<string, ChangeCounts>();
  private readonly unknownOperations = new Map<string, number>();

  constructor(candidate: Candidate, files: number, leftOut: readonly LeftOut[]) {
    this.report = {
      candidate: { from: candidate.from, file: candidate.file, revision: candidate.revision, dataRevision: candidate.data.revision },
      files: { read: files, leftOut: leftOut.slice(0, MAX_LISTED), leftOutCount: leftOut.length },
      events: 0,
      ...counts(),
      notReplayable: Object.fromEntries(NOT_REPLAYABLE.map((reason) => [reason, 0])) as Record<NotReplayableReason, number>,
      skipped: Object.fromEntries(SKIPPED.map((reason) => [reason, 0])) as Record<SkipReason, number>,
      unreadable: { count: 0, first: [] },
      byOperation: {},
      byRole: {},
      unknownOperations: {},
      examples: { widened: [], narrowed: [], changed: [] },
    };
  }

  unreadable(at: string, problem: string): void {
    const { unreadable } = this.report;
    unreadable.count += 1;
    if (unreadable.first.length < MAX_LISTED) unreadable.first.push({ at, problem });
  }

  /** An event that is not decided again; `operation` names an operation the candidate does not have. */
  notDecided(reason: SkipReason | NotReplayableReason, operation?: string): void {
    this.report.events += 1;
    if ((SKIPPED as readonly string[]).includes(reason)) this.report.skipped[reason as SkipReason] += 1;
    else this.report.notReplayable[reason as NotReplayableReason] += 1;
    if (operation === undefined) return;
    const key = boundedName(this.unknownOperations, operation);
    this.unknownOperations.set(key, (this.unknownOperations.get(key) ?? 0) + 1);
  }

  replayed(event: ReplayedEvent): void {
    this.report.events += 1;
    const kind = event.change ?? 'same';
    for (const tally of [this.report, countsOf(this.byOperation, event.operation), countsOf(this.byRole, boundedName(this.byRole, event.role))]) {
      tally.replayed += 1;
      tally[kind] += 1;
    }
    if (event.change !== undefined && this.report.examples[event.change].length < MAX_EXAMPLES) this.report.examples[event.change].push(event.example());
  }

  /** The report, its names in code-unit order (fromEntries defines each key: a role named __proto__ is one like any other). */
  result(): ReplayReport {
    const sorted = <T>(map: Map<string, T>) => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { ...this.report, byOperation: sorted(this.byOperation), byRole: sorted(this.byRole), unknownOperations: sorted(this.unknownOperations) };
  }
}

/** A decision as the report shows it. */
export function shownDecision(decision: Decision): ShownDecision {
  const shown: ShownDecision = { allow: decision.allow, attributes: decision.allow ? canonicalAttributes(decision.attributes) : [] };
  if (decision.list !== undefined) shown.list = decision.list.kind;
  return shown;
}

/** Whether some change of a kind was found: what --fail-on reads. */
export function changesFound(report: ReplayReport): DecisionChange[] {
  return CHANGES.filter((change) => report[change] > 0);
}

function counts(): ChangeCounts {
  return { replayed: 0, same: 0, widened: 0, narrowed: 0, changed: 0 };
}

function countsOf(map: Map<string, ChangeCounts>, name: string): ChangeCounts {
  let found = map.get(name);
  if (found === undefined) map.set(name, (found = counts()));
  return found;
}

/** The name to count under: itself (cut, see cutName) while fewer than MAX_NAMES are counted, else OTHERS. */
function boundedName(map: Map<string, unknown>, name: string): string {
  const cut = cutName(name);
  return map.has(cut) || map.size < MAX_NAMES ? cut : OTHERS;
}

/**
 * A name from the logs as the report keeps it: at most MAX_NAME_CHARS and `...`. A role claim of a
 * megabyte on each of a thousand events was a gigabyte of names. Copied through a Buffer: V8's
 * slice of a long string may keep the whole string alive.
 */
export function cutName(name: string): string {
  return name.length > MAX_NAME_CHARS ? Buffer.from(`${name.slice(0, MAX_NAME_CHARS)}...`).toString() : name;
}
