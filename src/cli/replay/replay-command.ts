import type { DataDocument } from '../../policy/compile/data-document';
import type { ApiShape } from '../../fleet/consumer/operation-differences';
import { failOnExitCode, readFailOn } from '../fail-on';
import type { Values } from '../read-command-line';
import { STANDARD_INPUT } from '../standard-input';
import { UsageError } from '../usage-error';
import { logSources } from './decision-log-files';
import { formatReplay } from './format-replay';
import { aclCandidate, bundleCandidate, type Candidate } from './replay-candidate';
import { replayDecisions } from './replay-decisions';
import { changesFound, type ReplayReport } from './replay-report';

/** What `svcgate replay` needs of the command line, the documents compiled as every command compiles them. */
export interface ReplayCommandLine {
  values: Values;
  rest: string[];
  /** --acl and --openapi (with --scheme, --required-scopes...) compiled into a data document. */
  compileAcl: () => DataDocument;
  /** --openapi's operations, without an ACL: the API a bundle must decide. */
  compileApi: () => ApiShape;
}

/**
 * `svcgate replay`: decides the requests of recorded decision logs again with a candidate (an ACL,
 * or a bundle) and reports what would change. Exit 1 when a change of the kind `--fail-on` names
 * was found, else 0; bad arguments and files that cannot be read are errors (exit 2).
 */
export async function replayCommand({ values, rest, compileAcl, compileApi }: ReplayCommandLine): Promise<number> {
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  const logs = values['decision-logs'];
  if (logs === undefined) throw new UsageError('--decision-logs <file|dir> is required: the decision logs to replay');
  // Read as a path, a URL would be `cannot read ... (ENOENT)`: say that nothing is fetched, as for documents.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(logs)) throw new UsageError('--decision-logs takes a file or folder, not a URL: svcgate fetches nothing (download the logs first, or pipe them: curl -f <url> | svcgate replay --decision-logs - ...)');
  const failOn = readFailOn(values['fail-on']);
  checkCandidateOptions(values);
  if (logs === STANDARD_INPUT && (values.openapi === STANDARD_INPUT || values.acl === STANDARD_INPUT)) throw new UsageError('--decision-logs and a document are both -: standard input holds one of them; give the other as a file');
  // The logs are looked at first: a wrong path is known before the candidate is compiled.
  const sources = logSources(logs);
  const candidate = await candidateOf(values, compileAcl, compileApi);
  const report = await replayDecisions(sources, candidate);
  warn(report);
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReplay(report));
  return failOnExitCode(failOn, changesFound(report));
}

function checkCandidateOptions(values: Values): void {
  if (values.bundle !== undefined) {
    if (values.acl !== undefined) throw new UsageError('give the candidate as --acl <file> (with --openapi) or as --bundle <file.tar.gz>, not both');
    if (values['anonymous-default'] !== undefined) throw new UsageError('--anonymous-default goes with --acl: a bundle holds its data compiled');
    // They say how to read --openapi's operations; without a document they would be ignored.
    const reading = (['scheme', 'required-scopes', 'ref-root'] as const).find((option) => values[option] !== undefined);
    if (reading !== undefined && values.openapi === undefined) throw new UsageError(`--${reading} goes with --openapi <file>: with --bundle, give the document the bundle must match`);
    return;
  }
  if (values['bundle-key'] !== undefined || values['bundle-alg'] !== undefined) throw new UsageError('--bundle-key and --bundle-alg go with --bundle <file.tar.gz>');
  if (values.acl === undefined) throw new UsageError('a candidate is required: --acl <file> with --openapi <file>, or --bundle <file.tar.gz>');
}

async function candidateOf(values: Values, compileAcl: () => DataDocument, compileApi: () => ApiShape): Promise<Candidate> {
  if (values.bundle === undefined) return aclCandidate(compileAcl(), values.acl!);
  return bundleCandidate(values.bundle, {
    keyFile: values['bundle-key'],
    algorithm: values['bundle-alg'],
    // Without --openapi the bundle decides whatever operations it holds; with it, exactly the document's.
    api: values.openapi === undefined ? undefined : compileApi(),
  });
}

/** A replay that read lines it could not use, or decided nothing again, is worth a warning: --strict makes either exit 1 for a CI gate. */
function warn(report: ReplayReport): void {
  if (report.unreadable.count > 0) process.emitWarning(`${report.unreadable.count} lines or elements of the decision logs are no event (first: ${report.unreadable.first[0]!.at}: ${report.unreadable.first[0]!.problem})`, { code: 'SVCGATE_REPLAY_UNREADABLE' });
  if (report.replayed === 0) process.emitWarning(`no event of the decision logs was decided again (${report.events} read): nothing was compared`, { code: 'SVCGATE_REPLAY_NOTHING' });
}
