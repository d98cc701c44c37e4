import type { PermissionSuiteResult } from './run-permission-suite';
import { markupText } from '../policy/compile/documents/markup-text';
import { failureDetails } from './suite-report';

/**
 * The suite's result as a JUnit XML report, the format CI systems read test results from: one
 * testsuite, a testcase per case (its class name the suite's name), a failure element for each
 * failed case with what differs and the decision's reasons.
 */
export function toJUnitXml(result: PermissionSuiteResult): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const counts = `tests="${result.cases.length}" failures="${result.failed}" errors="0"`;
  const cases = result.cases.map((testCase) => {
    const open = `    <testcase name="${markupText(testCase.name)}" classname="${markupText(result.name)}" time="${seconds(testCase.durationMs)}"`;
    if (testCase.passed) return `${open}/>`;
    const details = [`${testCase.request.method} ${testCase.request.path} -> ${testCase.actual.status}`, ...failureDetails(testCase)].join('\n');
    return `${open}>\n      <failure message="${markupText(testCase.mismatches.join('; '))}" type="PermissionMismatch">${markupText(details)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svcgate test" ${counts} time="${seconds(result.durationMs)}">`,
    `  <testsuite name="${markupText(result.name)}" ${counts} skipped="0" time="${seconds(result.durationMs)}" timestamp="${result.startedAt.slice(0, 19)}" file="${markupText(result.file)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
