import type { PermissionSuiteResult } from './run-permission-suite';
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
    const open = `    <testcase name="${xmlText(testCase.name)}" classname="${xmlText(result.name)}" time="${seconds(testCase.durationMs)}"`;
    if (testCase.passed) return `${open}/>`;
    const details = [`${testCase.request.method} ${testCase.request.path} -> ${testCase.actual.status}`, ...failureDetails(testCase)].join('\n');
    return `${open}>\n      <failure message="${xmlText(testCase.mismatches.join('; '))}" type="PermissionMismatch">${xmlText(details)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svcgate test" ${counts} time="${seconds(result.durationMs)}">`,
    `  <testsuite name="${xmlText(result.name)}" ${counts} skipped="0" time="${seconds(result.durationMs)}" timestamp="${result.startedAt.slice(0, 19)}" file="${xmlText(result.file)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * Text as XML character data and attribute values: the five markup characters escaped, and
 * each character XML 1.0 cannot hold at all (most controls, lone surrogates, U+FFFE/U+FFFF)
 * replaced by U+FFFD, since no escape can carry them.
 */
export function xmlText(text: string): string {
  return text.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD').replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
