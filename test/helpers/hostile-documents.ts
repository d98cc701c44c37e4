import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Small hostile documents of issue 27 section 4, as YAML text, and folders to write them into.

/** The top of a valid OpenAPI document, up to `components:` and its bearer scheme `b`. */
export const OPENAPI_HEAD = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\nsecurity: [{b: []}]\ncomponents:\n  securitySchemes:\n    b: {type: http, scheme: bearer}\n';
/** One operation, GET /a. */
export const PATHS = 'paths:\n  /a:\n    get: {responses: {"200": {description: ok}}}\n';

/** `levels` top-level keys `x-<n>`, each a list of `width` aliases of the one before: width^levels values once expanded. */
export function aliasFanOut(levels: number, width: number): string {
  let text = `x-0: &a0 [${Array(width).fill(1).join(',')}]\n`;
  for (let level = 1; level < levels; level++) text += `x-${level}: &a${level} [${Array(width).fill(`*a${level - 1}`).join(',')}]\n`;
  return text;
}

/** `components.schemas` lines (after OPENAPI_HEAD): `levels` schemas whose two properties both refer to the next one. */
export function refPairs(levels: number): string {
  let schemas = '  schemas:\n';
  for (let level = 0; level < levels; level++) schemas += `    s${level}: {properties: {a: {$ref: "#/components/schemas/s${level + 1}"}, b: {$ref: "#/components/schemas/s${level + 1}"}}}\n`;
  return `${schemas}    s${levels}: {type: string}\n`;
}

/** An object of `keys` keys, each a `$ref` to `target`: each use of it counts `keys` times the target's values. */
export function keysReferringTo(keys: number, target: string): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: keys }, (_, index) => [`k${index}`, { $ref: target }]));
}

/** Makes `$ref`s with a sibling description, counting how many were resolved (their description is read once each). */
export class CountedRefs {
  read = 0;

  to(target: string): Record<string, unknown> {
    const counter = this;
    return {
      $ref: target,
      get description() {
        counter.read++;
        return 'the same object again';
      },
    };
  }
}

/**
 * Registers the hooks of a temporary work folder for the test file, and returns a function that
 * makes a fresh folder in it holding `files` (names may have subfolders).
 */
export function documentFolders(): (files: Record<string, string>) => string {
  let work: string;
  let count = 0;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'svcgate-documents-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return (files) => {
    const dir = join(work, `case-${++count}`);
    mkdirSync(dir);
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  };
}
