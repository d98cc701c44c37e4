import fc from 'fast-check';

// fast-check arbitraries for adversarial HTTP requests against one API: request targets built from
// the API's own routes, then bent in every way a parser of the target could disagree with another
// (SPEC 7.1, 7.2): percent-encoding (single, double, invalid), `\`, `#`, `;`, `//`, `.` and `..`
// segments, letter case, trailing slashes, brackets and repeated keys in the query, more keys than
// qs and querystring read (1,000), unicode and fullwidth digits, leading zeros, signs, exponents,
// very long values, absolute-form and asterisk-form targets. Every value is the final text, so a
// counterexample prints as the exact bytes that were sent.

export interface RouteShape {
  /** The path after the API's prefix, with OpenAPI templates: `/items/{itemId}/secret`. */
  template: string;
  methods: string[];
  /** Query keys this route reads (its owned ones first); most of its requests carry them. */
  query?: string[];
  /** JSON body fields this route reads; most of its requests carry a body with them. */
  body?: string[];
}

export interface ApiShape {
  /** The server prefix the routes live under (`/api/v1`), or ''. */
  prefix: string;
  routes: RouteShape[];
  /** Sample values per parameter (path, query or body field) name: owned and not owned by the test tokens. */
  samples: Record<string, string[]>;
  /** Every name read from a query string, for keys that do not belong to the route. */
  queryKeys: string[];
  /** Every name read from a JSON body. */
  bodyFields: string[];
  /** Names of the callers a request can be sent as (the host maps them to Authorization headers), with weights. */
  tokens: { name: string; weight: number }[];
}

export interface GeneratedRequest {
  method: string;
  target: string;
  /** A name from ApiShape.tokens. */
  token: string;
  body?: string;
  contentType?: string;
}

/**
 * How bent a request is: `calm` multiplies the weight of every plain alternative. Half of the
 * requests are mild (mostly one bend in an otherwise valid request, which is what reaches a
 * handler with a subtly different value), half are wild (bends everywhere).
 */
interface Temper {
  calm: number;
}
const MILD: Temper = { calm: 6 };
const WILD: Temper = { calm: 1 };

/** Every request the property sends: mostly the API's routes with their methods, bent. */
export function requestArbitrary(api: ApiShape): fc.Arbitrary<GeneratedRequest> {
  return fc.oneof(requestsOf(api, MILD), requestsOf(api, WILD));
}

function requestsOf(api: ApiShape, t: Temper): fc.Arbitrary<GeneratedRequest> {
  const routeIndex = fc.nat({ max: api.routes.length - 1 });
  const method = fc.oneof(
    { withCrossShrink: true },
    { weight: 4 * t.calm, arbitrary: fc.nat().map((n) => ({ ofRoute: n })) },
    { weight: 1, arbitrary: fc.constantFrom('GET', 'HEAD', 'DELETE', 'POST', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'get', 'Delete').map((name) => ({ name })) },
  );
  // A route's requests mostly carry what the route reads; a junk path borrows a random route's methods.
  const ofRoute = routeIndex.chain((index) => {
    const route = api.routes[index]!;
    return fc.record({
      route: fc.constant(index),
      path: routePath(api, route.template, t),
      query: route.query?.length ? sometimes(queryArbitrary(api, route.query, t), 9, 1) : sometimes(queryArbitrary(api, api.queryKeys, t), 1, 2),
      body: route.body?.length ? sometimes(bodyArbitrary(api, route.body, t), 9, 1) : sometimes(bodyArbitrary(api, api.bodyFields, t), 1, 3),
    });
  });
  const ofJunk = fc.record({ route: routeIndex, path: junkPath(api, t), query: sometimes(queryArbitrary(api, api.queryKeys, t), 1, 1), body: sometimes(bodyArbitrary(api, api.bodyFields, t), 1, 3) });
  return fc
    .record({
      target: fc.oneof({ withCrossShrink: true }, { weight: 9, arbitrary: ofRoute }, { weight: 1, arbitrary: ofJunk }),
      method,
      trailing: trailingArbitrary(t),
      fragment: sometimes(fragmentArbitrary, 1, 9 * t.calm),
      form: formArbitrary(t),
      token: fc.oneof(...api.tokens.map(({ name, weight }) => ({ weight, arbitrary: fc.constant(name) }))),
    })
    .map(({ target: { route, path, query, body }, method: chosen, trailing, fragment, form, token }) => {
      const methods = api.routes[route]!.methods;
      const name = 'ofRoute' in chosen ? methods[chosen.ofRoute % methods.length]! : chosen.name;
      const originForm = `${path}${trailing}${query === undefined ? '' : `?${query}`}${fragment ?? ''}`;
      const request: GeneratedRequest = { method: name, target: applyForm(form, originForm), token };
      if (body !== undefined && /^(post|put|patch|delete)$/i.test(name)) Object.assign(request, body);
      return request;
    });
}

/** `arbitrary` in `present` of `present + absent` cases, else undefined (which shrinks first). */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, present: number, absent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ withCrossShrink: true }, { weight: absent, arbitrary: fc.constant(undefined) }, { weight: present, arbitrary });
}

// ---------------------------------------------------------------------------------------------
// Values

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
const encodeAll = (text: string) => [...Buffer.from(text, 'utf8')].map(hex).join('');
const encodeFirst = (text: string) => (text === '' ? '' : `${encodeAll([...text][0]!)}${[...text].slice(1).join('')}`);
/** `%` itself encoded once more: a value that decodes to `%69...` once and to `i...` twice. */
const doubleEncodeFirst = (text: string) => (text === '' ? '%2561' : `${encodeAll([...text][0]!).replace(/%/g, '%25')}${[...text].slice(1).join('')}`);
/** Fullwidth forms (U+FF10..): `12` -> `１２`, which \d does not match but Unicode digit readers do. */
const fullwidth = (text: string) => text.replace(/[0-9A-Za-z]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));

type Mutation = (text: string) => string;

/** Named so that a shrunk counterexample reads as what was done to the value. */
const MUTATIONS: Record<string, Mutation> = {
  encodeAll,
  encodeAllLower: (t) => encodeAll(t).toLowerCase(),
  encodeFirst,
  doubleEncodeFirst,
  invalidEscapeAfter: (t) => `${t}%zz`,
  truncatedEscapeBefore: (t) => `%4${t}`,
  lonePercent: (t) => `${t}%`,
  leadingZeros: (t) => `00${t}`,
  plus: (t) => `+${t}`,
  minus: (t) => `-${t}`,
  encodedPlus: (t) => `%2B${t}`,
  exponent: (t) => `${t}e0`,
  decimal: (t) => `${t}.0`,
  hexPrefix: (t) => `0x${t}`,
  fullwidth,
  fullwidthEncoded: (t) => encodeAll(fullwidth(t)),
  upper: (t) => t.toUpperCase(),
  dotlessI: (t) => t.replace(/i/g, 'ı'),
  longS: (t) => t.replace(/s/g, 'ſ'),
  accent: (t) => `${t}é`,
  label: (t) => `.${t}`,
  matrix: (t) => `;v=${t}`,
  matrixAfter: (t) => `${t};v=1`,
  json: (t) => `${t}.json`,
  comma: (t) => `${t},${t}x`,
  encodedSlashSecret: (t) => `${t}%2Fsecret`,
  encodedBackslashSecret: (t) => `${t}%5Csecret`,
  backslashSecret: (t) => `${t}\\secret`,
  slashSecret: (t) => `${t}/secret`,
  hashAfter: (t) => `${t}#`,
  questionAfter: (t) => `${t}?`,
  nul: (t) => `${t}%00`,
  encodedSpace: (t) => `%20${t}`,
  encodedTab: (t) => `${t}%09`,
  encodedNewline: (t) => `${t}%0A`,
  rawSpace: (t) => `${t} x`,
  empty: () => '',
  dot: () => '.',
  dotDot: () => '..',
  encodedDotDot: () => '%2e%2e',
  ampersand: (t) => `${t}%26accountId%3Dacc-2`,
  bracketed: (t) => `[${t}]`,
};

/** A long run (0.5-4 KiB on the wire): the request stays under Node's 16 KiB header limit. */
const longValue: fc.Arbitrary<Mutation> = fc
  .record({ bytes: fc.integer({ min: 512, max: 4096 }), unit: fc.constantFrom('a', '1', '0', '%61', '-', 'é', '%2F') })
  .map(({ bytes, unit }) => (t: string) => `${t}${unit.repeat(Math.max(1, Math.floor(bytes / Buffer.byteLength(unit))))}`);

const mutation: fc.Arbitrary<Mutation> = fc.oneof({ withCrossShrink: true }, { weight: 30, arbitrary: fc.constantFrom(...Object.values(MUTATIONS)) }, { weight: 1, arbitrary: longValue });

/** Characters that parsers treat specially, for values written from scratch. */
const ODD_CHARS = ['a', 'i', '1', '2', '0', '-', '%', '%2', '%25', '%2F', '%5C', '/', '\\', '#', '?', '&', '=', ';', ',', '.', '[', ']', '+', 'é', '１', 'e', 'x', 'ſ'];

function valueArbitrary(samples: readonly string[], t: Temper): fc.Arbitrary<string> {
  const sample = fc.constantFrom(...samples);
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 2 * t.calm, arbitrary: sample },
    { weight: 3, arbitrary: fc.tuple(sample, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([text, steps]) => steps.reduce((value, step) => step(value), text)) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...ODD_CHARS), { maxLength: 8 }).map((chars) => chars.join('')) },
  );
}

const samplesOf = (api: ApiShape, name: string) => api.samples[name] ?? ['x'];

// ---------------------------------------------------------------------------------------------
// Paths

/** How a literal part of the path may be written: as is, in another case, partly encoded... */
function literalArbitrary(literal: string, t: Temper): fc.Arbitrary<string> {
  if (literal === '') return fc.constant('');
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 12 * t.calm, arbitrary: fc.constant(literal) },
    { weight: 1, arbitrary: fc.constantFrom(literal.toUpperCase(), literal[0]!.toUpperCase() + literal.slice(1), encodeFirst(literal), encodeAll(literal), doubleEncodeFirst(literal)) },
    { weight: 1, arbitrary: fc.constantFrom(`${literal};x`, `${literal}.`, `${literal}%20`, `${literal}%00`, literal.replace(/s/g, 'ſ'), literal.replace(/i/g, 'ı'), literal.replace(/k/g, 'K'), fullwidth(literal)) },
  );
}

/** What goes between two segments. */
function separatorArbitrary(t: Temper): fc.Arbitrary<string> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 25 * t.calm, arbitrary: fc.constant('/') },
    { weight: 1, arbitrary: fc.constantFrom('//', '\\', '/\\', '/./', '/x/../', '/%2e/', '/%2E%2E/', '/..%2F', '%2F', '%2f', '%5C', '/;/', '/%20/', '///') },
  );
}

function prefixVariants(prefix: string): string[] {
  if (prefix === '') return ['/.', '//', '\\'];
  const parts = prefix.split('/').filter(Boolean);
  return [
    prefix.toUpperCase(),
    `/${parts.join('//')}`,
    `//${parts.join('/')}`,
    `\\${parts.join('\\')}`,
    `/${parts.join('\\')}`,
    `${prefix}/.`,
    `${prefix}/x/..`,
    `/${parts[0]}/./${parts.slice(1).join('/')}`,
    `/${parts.join('%2F')}`,
    `/${parts[0]}`,
    `${prefix}x`,
    `/${encodeFirst(prefix.slice(1))}`,
    '',
  ];
}

function prefixArbitrary(api: ApiShape, t: Temper): fc.Arbitrary<string> {
  return fc.oneof({ withCrossShrink: true }, { weight: 15 * t.calm, arbitrary: fc.constant(api.prefix) }, { weight: 1, arbitrary: fc.constantFrom(...prefixVariants(api.prefix)) });
}

/** `/items/{itemId}/secret` -> [['items'], [{itemId}], ['secret']]; `/dates/{y}-{m}-{d}` keeps its parts. */
function templateSegments(template: string): (string | { param: string })[][] {
  return template
    .split('/')
    .slice(1)
    .map((segment) =>
      segment
        .split(/(\{[^}]+\})/)
        .filter((part) => part !== '')
        .map((part) => (/^\{[^}]+\}$/.test(part) ? { param: part.slice(1, -1) } : part)),
    );
}

/** One route of the API, its parameters filled with (bent) values and its literals and slashes bent. */
function routePath(api: ApiShape, template: string, t: Temper): fc.Arbitrary<string> {
  const segments = templateSegments(template);
  const segmentArbitraries = segments.map((parts) => fc.tuple(...parts.map((part) => (typeof part === 'string' ? literalArbitrary(part, t) : valueArbitrary(samplesOf(api, part.param), t)))).map((texts) => texts.join('')));
  return fc
    .tuple(prefixArbitrary(api, t), fc.tuple(...segmentArbitraries), fc.array(separatorArbitrary(t), { minLength: segments.length, maxLength: segments.length }))
    .map(([prefix, texts, separators]) => `${prefix}${texts.map((text, index) => `${separators[index]}${text}`).join('')}`);
}

/** Paths no operation describes, made of the API's own words. */
function junkPath(api: ApiShape, t: Temper): fc.Arbitrary<string> {
  const words = [...new Set(api.routes.flatMap((route) => route.template.split(/[/{}-]/).filter(Boolean)))];
  const piece = fc.oneof(fc.constantFrom(...words, '.', '..', '', '%2e%2e', 'x'), valueArbitrary(Object.values(api.samples).flat(), t));
  return fc.tuple(prefixArbitrary(api, t), fc.array(fc.tuple(separatorArbitrary(t), piece), { maxLength: 4 })).map(([prefix, pieces]) => `${prefix}${pieces.map(([separator, text]) => `${separator}${text}`).join('')}`);
}

function trailingArbitrary(t: Temper): fc.Arbitrary<string> {
  return fc.oneof({ withCrossShrink: true }, { weight: 12 * t.calm, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '\\', '/.', '/..', ';', ';x=1', '.', '%2F', '/%2e', '%20', '?', '??') });
}

// ---------------------------------------------------------------------------------------------
// Query strings

/** How a query key may be written; brackets are what qs turns into objects, arrays or other keys. */
function keyArbitrary(key: string, t: Temper): fc.Arbitrary<string> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 3 * t.calm, arbitrary: fc.constant(key) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `[${key}]`,
        `${key}[]`,
        `${key}[0]`,
        `${key}[1]`,
        `${key}[25]`,
        `${key}[a]`,
        `${key}[][a]`,
        `${key}]`,
        `${key}[`,
        `%5B${key}%5D`,
        `${key}%5B%5D`,
        `${key}.a`,
        `a[${key}]`,
        `${key}[${key}]`,
        `__proto__[${key}]`,
        key.toUpperCase(),
        encodeFirst(key),
        encodeAll(key),
        doubleEncodeFirst(key),
        `${key}%00`,
        `${key}%20`,
        `+${key}`,
        fullwidth(key),
      ),
    },
  );
}

const OTHER_KEYS = ['a', 'a[b]', '__proto__', 'constructor', 'constructor[prototype]', 'hasOwnProperty', '[', ']', '', '=', 'f'];

/** `key=value` for one of `keys` (mostly), another key of the API, or a key no route reads. */
function pairArbitrary(api: ApiShape, keys: string[], t: Temper): fc.Arbitrary<string> {
  const pairFor = (names: string[]) =>
    fc.constantFrom(...names).chain((key) =>
      fc
        .tuple(keyArbitrary(key, t), fc.oneof({ withCrossShrink: true }, { weight: 10, arbitrary: valueArbitrary(samplesOf(api, key), t).map((value) => `=${value}`) }, { weight: 1, arbitrary: fc.constantFrom('', '=', '==') }))
        .map(([k, v]) => `${k}${v}`),
    );
  const other = fc.tuple(fc.constantFrom(...OTHER_KEYS), valueArbitrary(Object.values(api.samples).flat(), t)).map(([k, v]) => `${k}=${v}`);
  return fc.oneof({ withCrossShrink: true }, { weight: 8, arbitrary: pairFor(keys) }, { weight: 2, arbitrary: pairFor(api.queryKeys) }, { weight: 1, arbitrary: other });
}

/**
 * About 1,000 short parameters: qs (Express 4, @oas-tools/core) reads the first 1,000 parts and
 * node's querystring (Express 5) the first 1,000 keys; a reader without that limit sees more.
 */
const fillerArbitrary = fc.record({ count: fc.integer({ min: 990, max: 1010 }), unit: fc.constantFrom('f', 'f=1', 'f[]=1') });

function queryArbitrary(api: ApiShape, keys: string[], t: Temper): fc.Arbitrary<string> {
  return fc
    .record({
      pairs: fc.array(pairArbitrary(api, keys, t), { minLength: 1, maxLength: 4 }),
      joiner: fc.oneof({ withCrossShrink: true }, { weight: 12 * t.calm, arbitrary: fc.constant('&') }, { weight: 1, arbitrary: fc.constantFrom(';', '&&', '&amp;', '%26') }),
      filler: sometimes(fc.tuple(fillerArbitrary, fc.nat()), 1, 12),
    })
    .map(({ pairs, joiner, filler }) => {
      const parts = [...pairs];
      if (filler) {
        const [{ count, unit }, at] = filler;
        parts.splice(at % (parts.length + 1), 0, Array.from({ length: count }, () => unit).join('&'));
      }
      return parts.join(joiner);
    });
}

const fragmentArbitrary: fc.Arbitrary<string> = fc.constantFrom('#', '#x', '#/../secret', '#?accountId=acc-2', '#%zz', '#\\');

// ---------------------------------------------------------------------------------------------
// Forms of the target and bodies

type Form = 'origin' | 'absolute' | 'absolute-port' | 'absolute-upper' | 'absolute-other-host' | 'authority-slashes' | 'relative' | 'asterisk';

function formArbitrary(t: Temper): fc.Arbitrary<Form> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 30 * t.calm, arbitrary: fc.constant<Form>('origin') },
    { weight: 3, arbitrary: fc.constantFrom<Form>('absolute', 'absolute-port', 'absolute-upper', 'absolute-other-host', 'authority-slashes', 'relative') },
    { weight: 1, arbitrary: fc.constant<Form>('asterisk') },
  );
}

function applyForm(form: Form, originForm: string): string {
  const path = originForm.startsWith('/') ? originForm : `/${originForm}`;
  switch (form) {
    case 'origin':
      return originForm;
    case 'absolute':
      return `http://127.0.0.1${path}`;
    case 'absolute-port':
      return `http://127.0.0.1:80${path}`;
    case 'absolute-upper':
      return `HTTP://LOCALHOST${path}`;
    case 'absolute-other-host':
      return `https://api.example${path}`;
    case 'authority-slashes':
      return `//127.0.0.1${path}`;
    case 'relative':
      return originForm.replace(/^\/+/, '');
    case 'asterisk':
      return '*';
  }
}

/** A JSON body naming one of `fields`: a plain value, a bent one, another type, or a body parsers read differently. */
function bodyArbitrary(api: ApiShape, fields: string[], t: Temper): fc.Arbitrary<{ body: string; contentType?: string }> {
  const names = fields.length > 0 ? fields : ['accountId'];
  const field = fc.constantFrom(...names);
  const samples = names.flatMap((name) => samplesOf(api, name));
  const json = fc.oneof(
    { withCrossShrink: true },
    { weight: 2 * t.calm, arbitrary: fc.constantFrom(...samples).map((sample) => JSON.stringify(sample)) },
    { weight: 1, arbitrary: valueArbitrary(samples, t).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.constantFrom('2', '2.0', '-0', '1e1', '12345678901234567890', 'null', 'true', '[]', '{}', '""') },
    { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...samples), { minLength: 1, maxLength: 3 }).map((list) => JSON.stringify(list)) },
    { weight: 1, arbitrary: fc.constantFrom(...samples).map((sample) => JSON.stringify({ a: sample })) },
  );
  const text = fc.oneof(
    { withCrossShrink: true },
    { weight: 3 * t.calm, arbitrary: fc.tuple(field, json).map(([name, value]) => `{"${name}":${value}}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(field, fc.constantFrom(...samples), fc.constantFrom(...samples)).chain(([name, first, second]) =>
        fc.constantFrom(
          `{"${name}":"${first}","${name}":"${second}"}`,
          `{"__proto__":{"${name}":"${second}"},"${name}":"${first}"}`,
          `{"${name}":"${first}","__proto__":{"${name}":"${second}"}}`,
          `[{"${name}":"${first}"}]`,
          `{"${name.toUpperCase()}":"${second}","${name}":"${first}"}`,
          `${name}=${first}`,
          `{"${name}":"${first}"`,
        ),
      ),
    },
  );
  const contentType = fc.oneof(
    { withCrossShrink: true },
    { weight: 8 * t.calm, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json') },
  );
  return fc.tuple(text, sometimes(contentType, 9, 1)).map(([body, type]) => (type === undefined ? { body } : { body, contentType: type }));
}
