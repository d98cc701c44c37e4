import { z } from 'zod';
import { ConfigError, jsonPath } from '../compile/config-error';

/**
 * A claim path names a claim inside a JWT payload, for `roleBinding` and `x-acl-binding`:
 * names separated by dots (`realm_access.roles`), and a name that holds a dot, a bracket or a
 * double quote written in brackets as a JSON string (`["https://example.com/roles"]`,
 * `resource_access["my-api"].roles`). It is parsed once into its list of names.
 */
export type ClaimPath = readonly string[];

type Parsed = { names: string[] } | { problem: string; fix: string };

const PATH_EXAMPLE = 'e.g. role, realm_access.roles or ["https://example.com/roles"]';
const QUOTE_FIX = 'write a name that holds . [ ] " or spaces in brackets with double quotes, e.g. resource_access["my-api"].roles';
/** Characters an unquoted name may not hold: the syntax's own, and whitespace and controls, which are typos far more often than claim names. */
const UNQUOTED_FORBIDDEN = /[.[\]"\s\p{Cc}]/u;

/** The names of a claim path, or a ConfigError naming `file` and the place `at` inside it. */
export function parseClaimPath(text: string, file: string, at: readonly (string | number)[]): ClaimPath {
  const parsed = parse(text);
  if ('problem' in parsed) throw new ConfigError(file, jsonPath(at), parsed.problem, parsed.fix);
  return parsed.names;
}

/** A zod string that must be a claim path, for options validated with parseWith. */
export const claimPathSchema = (what: string) =>
  z
    .string({ error: `${what} must name a claim` })
    .min(1, { error: `${what} must name a claim` })
    .superRefine((text, context) => {
      const parsed = parse(text);
      if ('problem' in parsed) context.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(text)}: ${parsed.problem} (${parsed.fix})` });
    });

/**
 * Adapters validate their paths at start-up; this turns the same text into its names on the
 * request path without parsing it again. Only configuration reaches it, so few texts are ever
 * seen; past the bound a text is parsed each time rather than remembered.
 */
const MAX_REMEMBERED = 1024;
const remembered = new Map<string, ClaimPath>();

export function claimPath(text: string): ClaimPath {
  let names = remembered.get(text);
  if (names === undefined) {
    names = parseClaimPath(text, '<claim path>', []);
    if (remembered.size < MAX_REMEMBERED) remembered.set(text, names);
  }
  return names;
}

/**
 * The claim at `path`: undefined when it is absent (a name is missing), null when the path runs
 * through something that is not a JSON object (a list, a string, null), which the callers treat
 * as a malformed claim. Only own properties are read, never a prototype's: the path `constructor`
 * finds a claim named `constructor` or nothing. Lists are not indexed.
 */
export function readClaim(payload: unknown, path: ClaimPath): unknown {
  if (payload === undefined) return undefined;
  let value: unknown = payload;
  for (const name of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    if (!Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

function parse(text: string): Parsed {
  if (text === '') return { problem: 'the claim path is empty', fix: `name a claim, ${PATH_EXAMPLE}` };
  const names: string[] = [];
  const quoted: boolean[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (names.length > 0) {
      // After a name, either a dot and the next name, or a bracket.
      if (char === '.') {
        at++;
        if (at === text.length) return { problem: `the path ends with a dot`, fix: `remove the trailing dot, ${PATH_EXAMPLE}` };
        if (text[at] === '.' || text[at] === '[') return { problem: `empty name at character ${at + 1}`, fix: text[at] === '[' ? `write name["key"], without a dot before the bracket` : 'separate names with one dot' };
      } else if (char !== '[') {
        return { problem: `unexpected ${JSON.stringify(char)} at character ${at + 1}`, fix: QUOTE_FIX };
      }
    }
    if (text[at] === '[') {
      const read = readQuoted(text, at);
      if ('problem' in read) return read;
      names.push(read.name);
      quoted.push(true);
      at = read.end;
      continue;
    }
    const start = at;
    while (at < text.length && !UNQUOTED_FORBIDDEN.test(text[at]!)) at++;
    if (at === start) {
      return text[at] === '.' ? { problem: `empty name at character ${at + 1}`, fix: `a path starts with a name, ${PATH_EXAMPLE}` } : { problem: `unexpected ${JSON.stringify(text[at])} at character ${at + 1}`, fix: QUOTE_FIX };
    }
    names.push(text.slice(start, at));
    quoted.push(false);
  }
  // `https://example.com/roles` reads as the claim `https://example` holding `com/roles`: what was
  // meant is one claim whose name holds dots, and a nested path whose first name has a colon is
  // that mistake far more often than a real claim.
  if (names.length > 1 && !quoted[0] && names[0]!.includes(':')) {
    return { problem: `${JSON.stringify(text)} reads as the claim ${JSON.stringify(names[0])} holding ${names.slice(1).map((name) => JSON.stringify(name)).join(' then ')}`, fix: `for one claim whose name holds dots, write it in brackets: [${JSON.stringify(text)}]` };
  }
  return { names };
}

/** `["name"]` from the bracket at `open`: the name (JSON string escapes allowed) and where the text goes on. */
function readQuoted(text: string, open: number): { name: string; end: number } | { problem: string; fix: string } {
  if (text[open + 1] !== '"') return { problem: `[ at character ${open + 1} is not followed by a double-quoted name`, fix: `write ["name"]; list indexes are not supported` };
  let at = open + 2;
  while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  if (at >= text.length) return { problem: `the quoted name opened at character ${open + 2} is not closed`, fix: 'close it with " and ]' };
  let name: string;
  try {
    name = JSON.parse(text.slice(open + 1, at + 1)) as string;
  } catch {
    return { problem: `the quoted name at character ${open + 2} is not a valid JSON string`, fix: 'use JSON escapes only (\\" \\\\ \\uXXXX ...)' };
  }
  if (text[at + 1] !== ']') return { problem: `the quoted name at character ${open + 2} is not followed by ]`, fix: 'write ["name"]' };
  if (name === '') return { problem: `empty name at character ${open + 1}`, fix: 'name the claim inside the quotes' };
  return { name, end: at + 2 };
}
