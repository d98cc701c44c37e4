/**
 * The svcgate warnings a command prints (SVCGATE_ANONYMOUS_DEFAULT, SVCGATE_UNUSED_GRANT, any
 * other SVCGATE_ code), counted so that `--strict` turns them into exit code 1
 * for CI. They are still printed as Node prints warnings, and the command still does its work:
 * only the exit code changes. Node's own warnings (an experimental feature) do not count.
 */
export class StrictWarnings {
  private codes: string[] = [];
  private readonly listener = (warning: Error & { code?: unknown }) => {
    if (typeof warning.code === 'string' && warning.code.startsWith('SVCGATE_')) this.codes.push(warning.code);
  };

  constructor() {
    process.on('warning', this.listener);
  }

  /** Forgets the warnings printed so far (diff: those of the old ACL, which is already in place). */
  async ignoreSoFar(): Promise<void> {
    await emitted();
    this.codes = [];
  }

  /** The command's exit code (0 or 1), or 1 when --strict is given and a warning was printed. */
  async exitCode(code: number, strict: boolean): Promise<number> {
    await emitted();
    if (!strict || this.codes.length === 0) return code;
    const count = this.codes.length;
    process.stderr.write(`svcgate: --strict: ${count} warning${count === 1 ? '' : 's'} (${[...new Set(this.codes)].join(', ')}), so the exit code is 1\n`);
    return 1;
  }

  close(): void {
    process.off('warning', this.listener);
  }
}

/** process.emitWarning emits on the next tick: a turn of the event loop lets every warning asked for so far arrive. */
function emitted(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
