import { quoted } from '../../policy/compile/quoted-text';
import { NOT_REPLAYABLE, SKIPPED, type NotReplayableReason, type SkipReason } from './classify-event';
import { CHANGES, MAX_EXAMPLES, type ChangeCounts, type ReplayExample, type ReplayReport, type ShownDecision } from './replay-report';

/** What each count of events that were not decided again stands for. */
const REASONS: Record<SkipReason | NotReplayableReason, string> = {
  shadow: 'shadow divergence events, which repeat a decision logged already',
  other_path: 'of another path than svcgate/authz/decision and svcgate/authz/plan',
  refused_401: 'refused with 401 before any decision',
  other_schemes: 'let in by another security scheme, without a policy decision',
  unavailable: 'answered 503: nothing could decide',
  bad_request: 'refused with 400 before the policy was asked',
  failed: 'the guard failed before a decision',
  masked: 'input or result erased or masked, never decided on a guess',
  incomplete: 'without an input operation or a result',
  malformed_result: "a recorded result that is not svcgate's decision",
  unknown_operation: 'of operations the candidate does not have',
  ownership_unchecked: 'the candidate needs checkOwnership results that were never recorded',
  scopes_unrecorded: 'the candidate asks for scopes the recorded input does not show',
};

const COLUMNS: readonly (keyof ChangeCounts)[] = ['replayed', 'same', 'widened', 'narrowed', 'changed'];

/**
 * The report as text: totals, why events were not decided again, counts by operation and role,
 * and the first examples of each change. Only what the policy decided is shown (allow, attributes,
 * a plan's kind), never an input's claims or parameter values; text from the logs (roles, ids,
 * operations) is escaped as messages escape it.
 */
export function formatReplay(report: ReplayReport): string {
  const { candidate } = report;
  const lines = [
    `replayed ${report.replayed} of ${report.events} events from ${plural(report.files.read, 'file')} with the ${candidate.from === 'acl' ? 'ACL' : 'bundle'} ${shown(candidate.file)} (revision ${shown(candidate.revision)}):`,
    `  same ${report.same}, widened ${report.widened}, narrowed ${report.narrowed}, changed ${report.changed}`,
  ];
  lines.push(...reasons('not replayable', NOT_REPLAYABLE, report.notReplayable, report.unknownOperations));
  lines.push(...reasons('skipped', SKIPPED, report.skipped));
  const { unreadable, files } = report;
  if (unreadable.count > 0) {
    const more = unreadable.count - unreadable.first.length;
    lines.push(`unreadable: ${unreadable.count} (lines or elements that are no event)`, ...unreadable.first.map(({ at, problem }) => `  ${shown(at)}: ${problem}`), ...(more > 0 ? [`  and ${more} more`] : []));
  }
  if (files.leftOutCount > 0) lines.push(`left out of the folder: ${files.leftOut.map(({ name, why }) => `${shown(name)} (${why})`).join(', ')}${files.leftOutCount > files.leftOut.length ? `, and ${files.leftOutCount - files.leftOut.length} more` : ''}`);
  if (report.replayed > 0) {
    lines.push('', ...table('by operation', report.byOperation), '', ...table('by role', report.byRole));
  }
  for (const change of CHANGES) {
    const examples = report.examples[change];
    if (examples.length === 0) continue;
    lines.push('', `${change}: ${report[change]}${report[change] > examples.length ? ` (the first ${MAX_EXAMPLES})` : ''}`, ...examples.map((example) => `  ${exampleLine(example)}`));
  }
  return `${lines.join('\n')}\n`;
}

function reasons<Reason extends string>(title: string, names: readonly Reason[], counts: Record<Reason, number>, unknown?: Record<string, number>): string[] {
  const found = names.filter((name) => counts[name] > 0);
  if (found.length === 0) return [];
  const total = found.reduce((sum, name) => sum + counts[name], 0);
  return [
    `${title}: ${total}`,
    ...found.map((name) => {
      const operations = name === 'unknown_operation' && unknown !== undefined ? `: ${Object.entries(unknown).map(([operation, count]) => `${shown(operation)} ${count}`).join(', ')}` : '';
      return `  ${name} ${counts[name]} (${REASONS[name as SkipReason | NotReplayableReason]}${operations})`;
    }),
  ];
}

/** Counts by name, in aligned columns, each as wide as its header or its largest count. */
function table(title: string, rows: Record<string, ChangeCounts>): string[] {
  const names = Object.keys(rows).map(shown);
  const counted = Object.values(rows);
  const width = Math.max(title.length, ...names.map((name) => name.length + 2));
  const widths = COLUMNS.map((column) => Math.max(column.length, ...counted.map((counts) => String(counts[column]).length)));
  const header = `${title.padEnd(width)}  ${COLUMNS.map((column, index) => column.padStart(widths[index]!)).join('  ')}`;
  return [header, ...counted.map((counts, index) => `  ${names[index]!.padEnd(width - 2)}  ${COLUMNS.map((column, at) => String(counts[column]).padStart(widths[at]!)).join('  ')}`)];
}

/** `<decision_id> <timestamp> (<file:line>): <role> on <operation>: allow ["*"] -> deny`. */
function exampleLine(example: ReplayExample): string {
  const id = example.decisionId === null ? '(no decision_id)' : shown(example.decisionId);
  const time = example.timestamp === null ? '' : ` ${shown(example.timestamp)}`;
  return `${id}${time} (${shown(example.at)}): ${shown(example.role)} on ${shown(example.operation)}: ${decisionText(example.before)} -> ${decisionText(example.after)}`;
}

function decisionText(decision: ShownDecision): string {
  const list = decision.list === undefined ? '' : ` (list ${decision.list})`;
  return decision.allow ? `allow ${shown(JSON.stringify(decision.attributes))}${list}` : `deny${list}`;
}

/** Text from the logs as it is when it is short printable ASCII, else quoted with its other characters escaped. */
function shown(text: string): string {
  return /^[\x20-\x7e]{1,200}$/.test(text) && !text.startsWith('"') ? text : quoted(text);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
