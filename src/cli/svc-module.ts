import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../policy/compile/config-error';
import { isPlainObject } from '../policy/compile/documents/plain-object';
import { SvcApi } from '../svc/svc-api';
import type { RoutesOpenApi } from '../svc/routes-openapi';
import type { SvcContainer } from '../svc/svc-container';
import { checkExists } from './command-files';

/** What `svcgate openapi --svc <module>` describes: the API, and the owners its svcAcl is given. */
export interface SvcModule {
  api: { openapi(): RoutesOpenApi };
  owners: Record<string, Record<string, string>>;
}

const FIX = 'export the SvcApi (or the SvcContainer its routes come from) as api or as the default export, e.g. export const api = new SvcApi().from(container); and, when svcAcl is given owners, export them as owners';

// TypeScript compiles import() to require() in the CommonJS build, which cannot load an ES module
// on every Node this package supports; a function made at run time keeps the real import().
const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

/**
 * Loads a module that exports a SvcApi or a SvcContainer: as `api` or as the default export, in an
 * ES module or in CommonJS (`module.exports = { api }`, or TypeScript's `exports.default`). It
 * may also export `owners`, the object svcAcl's `owners` option is given, so that the document marks
 * the owned fields as svcAcl compiles them. The module is imported, so its top level runs: it
 * must not listen or wait for a server.
 */
export async function loadSvcModule(file: string): Promise<SvcModule> {
  const path = resolve(file);
  checkExists(path, 'SvcApi module', 'file');
  let namespace: Record<string, unknown>;
  try {
    namespace = await importModule(pathToFileURL(path).href);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const problem = `cannot load the SvcApi module${typeof code === 'string' ? ` (${code})` : ''}: ${firstLine(error)}`;
    throw new ConfigError(path, '$', problem, 'the module must load with node: build TypeScript first (or run svcgate with NODE_OPTIONS="--import tsx"), and check what the error names');
  }
  // An ES module's names, then those of a CommonJS module.exports (the default export of a CommonJS module seen through import()).
  const scopes = [namespace, ...(isObject(namespace.default) ? [namespace.default] : [])];
  const found = scopes.flatMap((scope) => [scope.api, scope.default]).find((candidate) => kindOf(candidate) !== undefined) ?? onlyExport(scopes, path);
  if (found === undefined) {
    const names = Object.keys(namespace).join(', ') || 'nothing';
    throw new ConfigError(path, '$', `the module exports no SvcApi or SvcContainer as api or as its default export (it exports ${names})`, FIX);
  }
  const owners = scopes.map((scope) => scope.owners).find((value) => value !== undefined) ?? {};
  if (!isPlainObject(owners)) throw new ConfigError(path, '$.owners', 'owners is not an object', 'export owners as svcAcl takes them: { "<instance>.<method>": { <argument field>: <claim path> } }');
  return { api: asApi(found), owners: owners as SvcModule['owners'] };
}

/**
 * Under another name (`export const app = new SvcApi()...`): the one SvcApi the module exports,
 * else its one SvcContainer; several of a kind are a ConfigError, since guessing could describe
 * another API than the one served.
 */
function onlyExport(scopes: Record<string, unknown>[], path: string): unknown {
  const named = new Map(scopes.flatMap((scope) => Object.entries(scope)));
  for (const kind of ['api', 'container'] as const) {
    const matching = [...named].filter(([, value]) => kindOf(value) === kind);
    if (matching.length === 1) return matching[0]![1];
    if (matching.length > 1) throw new ConfigError(path, '$', `the module exports several ${kind === 'api' ? 'SvcApis' : 'SvcContainers'} (${matching.map(([name]) => name).join(', ')}) and none as api or as its default export`, FIX);
  }
  return undefined;
}

/**
 * A SvcApi or a SvcContainer, recognized by shape too, not only by class: a project's own copy of
 * svcgate, not the CLI's, may have made it.
 */
function kindOf(value: unknown): 'api' | 'container' | undefined {
  if (!isObject(value)) return undefined;
  if (value instanceof SvcApi || (typeof value.openapi === 'function' && typeof value.handler === 'function')) return 'api';
  if (typeof value.services === 'function' && typeof value.servicesWithoutRoutes === 'function') return 'container';
  return undefined;
}

function asApi(value: unknown): SvcModule['api'] {
  return kindOf(value) === 'api' ? (value as SvcModule['api']) : new SvcApi().from(value as SvcContainer<object>);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
