import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ShadowStatus } from '../../src/auth';

const SERVER = join(__dirname, '../fixtures/oas-server.mjs');
const ROOT = join(__dirname, '../..');

export interface OasSetup {
  openapi: string;
  jwt: Record<string, unknown>;
  /** The third argument of use(BearerJWT, ...); null: BearerJWT is not used. */
  position: number | null;
  acl?: Record<string, unknown>;
  /** In place of acl: BearerJWT's policy is a bundleConsumer polling this URL. */
  bundleUrl?: string;
  roleBinding?: string;
  checkOwnership?: 'even' | 'throws' | 'yes';
  securityDisabled?: boolean;
  customHandler?: boolean;
  requestValidation?: boolean;
  /** `{ <apiKey scheme>: [valid keys] }`: security handlers for the document's apiKey schemes. */
  apiKeys?: Record<string, string[]>;
  /** The document's bearer schemes besides bearerAuth, verified by the same bearerJwt(jwt). */
  bearerSchemes?: string[];
  /**
   * BearerJWT's shadow option (sampleRate, timeoutMs... as given): its candidate is `source`
   * (a declaration or file), a bundleConsumer polling `bundleUrl`, or a source whose evaluate
   * throws or never settles (`failing`); keyed by `scheme` when given. `GET /__status` answers
   * `BearerJWT.of(app).status()`.
   */
  shadow?: { source?: unknown; bundleUrl?: string; failing?: 'throws' | 'hangs'; scheme?: string; sampleRate?: number; timeoutMs?: number };
  /** BearerJWT's exposeReasons. */
  exposeReasons?: boolean;
  /** NODE_ENV while the host initializes (BearerJWT is created then); restored after. */
  nodeEnv?: string;
  /** BearerJWT's errors option. */
  errors?: 'json' | 'problem' | 'next';
  /** false: the host's error handler is off (middleware.error.disable). */
  hostErrorHandler?: boolean;
  /** An app error middleware after the host's, which answers with the error it received (as JSON); 'async': after a timer. */
  appErrorHandler?: boolean | 'async';
}

export interface OasHost {
  url: string;
  /** Operation ids the controllers ran, and the decision log, in order. */
  calls(): Promise<{ calls: string[]; events: Record<string, unknown>[] }>;
  /** `BearerJWT.of(app).status()` in the host (null when no BearerJWT was registered). */
  status(): Promise<{ shadow: ShadowStatus | null } | null>;
  stop(): void;
}

/** Starts the real @oas-tools/core host in a child process, on 127.0.0.1 and a free port; `env` is added to this process's environment. */
export function startOasHost(setup: OasSetup, env: Record<string, string> = {}): Promise<OasHost> {
  const child = spawn(process.execPath, [SERVER, JSON.stringify({ packageJSON: join(ROOT, 'package.json'), ...setup })], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /PORT (\d+)/.exec(output)?.[1];
      if (port === undefined) return;
      const url = `http://127.0.0.1:${port}`;
      resolve({
        url,
        calls: async () => (await fetch(`${url}/__calls`)).json() as Promise<{ calls: string[]; events: Record<string, unknown>[] }>,
        status: async () => (await fetch(`${url}/__status`)).json() as Promise<{ shadow: ShadowStatus | null } | null>,
        stop: () => child.kill(),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the host exited with ${code}:\n${output}`)));
  });
}

/** Runs a host that must fail to start; resolves to everything it printed. */
export function failedStart(setup: OasSetup): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [SERVER, JSON.stringify({ packageJSON: join(ROOT, 'package.json'), ...setup })], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill(), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
