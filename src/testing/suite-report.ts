import type { PermissionCaseResult, PermissionSuiteResult } from './run-permission-suite';

/**
 * The suite's result as `svcgate test` prints it: one line per case, a failed case followed by
 * what differs, the decision and its reasons, then a summary line.
 */
export function formatSuiteResult(result: PermissionSuiteResult): string {
  const lines = result.cases.flatMap(caseLines);
  const seconds = (result.durationMs / 1000).toFixed(2);
  lines.push('', `${result.cases.length} cases: ${result.passed} passed, ${result.failed} failed (${seconds} s)`);
  return `${lines.map(printable).join('\n')}\n`;
}

function caseLines(result: PermissionCaseResult): string[] {
  const { request, actual } = result;
  const head = `${result.passed ? 'pass' : 'FAIL'}  ${result.name}: ${request.method} ${request.path} -> ${actual.status}`;
  return result.passed ? [head] : [head, ...failureDetails(result).map((line) => `      ${line}`)];
}

/** What a failed case shows, in the console and in the JUnit report: each expectation not met, the decision, its reasons. */
export function failureDetails({ mismatches, actual }: PermissionCaseResult): string[] {
  const attributes = actual.attributes.length > 0 ? actual.attributes.join(' ') : '-';
  const decision = `decision: ${actual.allow ? 'allow' : 'deny'}, role ${actual.role ?? '-'}, possession ${actual.possession ?? '-'}, attributes ${attributes}`;
  return [...mismatches, decision, ...actual.reasons.map((reason) => `reason: ${reason}`), ...(actual.answer === undefined ? [] : [`answer: ${actual.answer}`])];
}

/** Claims and bodies may hold any text; a control or format character (a terminal escape, a bidi override) is shown as \uXXXX, not obeyed. */
function printable(line: string): string {
  return line.replace(/[\p{Cc}\p{Cf}]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
