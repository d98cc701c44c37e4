import type { ArgumentSchema } from './argument-schema';
import { ConfigError } from '../policy/compile/config-error';
import { classChain, publicMethods } from './class-chain';
import { didYouMean } from './closest-name';
import type { ServiceClass } from './container-types';

/** One class of a service's inheritance chain: its constructor and the prototype it owns. */
export interface ChainClass {
  Class: Record<string, unknown>;
  prototype: object;
  /** Its name; an unnamed class (written inline in a map) takes the instance's. */
  name: string;
}

/**
 * `static internal = ['resetAll']`: methods other services call that are no routes. TypeScript's
 * `private` and `protected` are gone at run time, so such methods are routes unless listed here
 * (or named with `#` or `_`). The lists of the service's class and of every class it extends are
 * merged: a subclass's own list adds to its parent's, as the methods it inherits are routes too.
 * Each name maps to the class whose list holds it. Fails closed: a name that is no public method
 * of that class (a typo), or an `internal` field without `static` (which nothing would read),
 * would leave the method it meant a route.
 */
export function readInternal(service: object, instance: string): ReadonlyMap<string, string> {
  refuseNonStatic(service, instance, 'internal', (value) => value !== undefined, "write static readonly internal = ['resetAll'] (static: SvcApi reads the class, not its instances)");
  const internal = new Map<string, string>();
  for (const { Class, prototype, name } of classesOf(service, instance)) {
    if (!Object.hasOwn(Class, 'internal')) continue;
    const listed = Class.internal;
    const methods = publicMethods(prototype);
    const file = `<class ${name}>`;
    if (!Array.isArray(listed) || !listed.every((entry) => typeof entry === 'string')) {
      throw new ConfigError(file, '$.internal', 'internal must be a list of method names', `write static readonly internal = ['${methods[0] ?? 'resetAll'}']`);
    }
    listed.forEach((method: string, index) => {
      if (!methods.includes(method)) {
        throw new ConfigError(file, `$.internal[${index}]`, `${method} is no public method of ${name}, so listing it keeps no route out${didYouMean(method, methods)}`, 'name a method of the class (its spelling, in camel case)');
      }
      if (!internal.has(method)) internal.set(method, name);
    });
  }
  return internal;
}

/**
 * `static schemas = { findUsers: z.object(...) }` of the service's class and of every class it
 * extends, merged: the nearest class's schema of a method wins, and a subclass declaring schemas
 * of its own methods does not leave the inherited ones unchecked. Keyed by a Map, so that a method
 * named like a member of Object.prototype (toString) finds no schema it never declared.
 */
export function readSchemas(service: object, instance: string): ReadonlyMap<string, ArgumentSchema> {
  refuseNonStatic(service, instance, 'schemas', looksLikeSchemas, 'write static schemas = { <method>: z.object(...) } (static: SvcApi reads the class, not its instances)');
  const schemas = new Map<string, ArgumentSchema>();
  for (const { Class, name } of classesOf(service, instance)) {
    if (!Object.hasOwn(Class, 'schemas') || Class.schemas === undefined) continue;
    for (const [method, schema] of Object.entries(Class.schemas as object)) {
      if (!isSchema(schema)) throw new TypeError(`SvcApi: ${name}.schemas.${method} is not a zod schema`);
      if (!schemas.has(method)) schemas.set(method, schema);
    }
  }
  return schemas;
}

/** The classes of a service, nearest first: the constructor each prototype of its chain owns. */
export function classesOf(service: object, instance: string): ChainClass[] {
  const classes: ChainClass[] = [];
  for (const prototype of classChain(Object.getPrototypeOf(service) as object | null)) {
    const Class: unknown = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value;
    if (typeof Class === 'function') classes.push({ Class: Class as unknown as Record<string, unknown>, prototype, name: Class.name || instance });
  }
  return classes;
}

/**
 * `internal = [...]` or `schemas = {...}` written without `static` is a field of each instance
 * (or, set on a prototype, a property of it), which SvcApi never reads: the methods it names
 * would stay routes, or their arguments unchecked, with nothing said. A method of that name is a
 * route like any other and is left alone; so is a field that `means` does not recognise.
 */
export function refuseNonStatic(service: object, instance: string, property: 'internal' | 'schemas' | 'lists', means: (value: unknown) => boolean, fix: string): void {
  for (const holder of classChain(service)) {
    const descriptor = Object.getOwnPropertyDescriptor(holder, property);
    if (descriptor === undefined) continue;
    if (holder !== service && typeof descriptor.value === 'function') return;
    // A getter is not called (it may do anything): refused as `internal` and `lists`, whatever it would return.
    const meant = 'value' in descriptor ? means(descriptor.value) : property !== 'schemas';
    if (meant) {
      const where = holder === service ? 'a field of each instance' : 'a property of its prototype';
      const name = (service.constructor as { name?: string } | undefined)?.name || instance;
      throw new ConfigError(`<class ${name}>`, `$.${property}`, `${property} is ${where}, not static, so SvcApi does not read it`, fix);
    }
    return;
  }
}

function isSchema(value: unknown): value is ArgumentSchema {
  return typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function';
}

/** An object of zod schemas, as a `schemas` field meant for SvcApi is; any other field of that name is the service's own business. */
function looksLikeSchemas(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values = Object.values(value);
  return values.length > 0 && values.every(isSchema);
}

/**
 * `static readonly instanceName = 'orderService'` lets TypeScript type the instance under its
 * name, which it cannot read from the class. It must be the name the container gives the class
 * (its name in camel case), or `services()` would be typed with an instance that is not there. An
 * inherited name counts, as it does in the class's type; TypeScript does not let a subclass
 * declare another literal, so a subclass of a named class is registered by the object form.
 * Checked in the class form only; the object form names instances by its keys.
 */
export function checkInstanceName(service: ServiceClass, instance: string): void {
  const declared: unknown = (service as unknown as { instanceName?: unknown }).instanceName;
  if (declared === undefined) return;
  const file = `<class ${service.name}>`;
  const fix = `write static readonly instanceName = '${instance}' in ${service.name}, or leave it out`;
  if (typeof declared !== 'string') throw new ConfigError(file, '$.instanceName', 'instanceName must be a string: the instance name', fix);
  if (declared === instance) return;
  const owner = [...classChain(service)].find((Class) => Object.hasOwn(Class, 'instanceName')) as { name?: string } | undefined;
  if (owner === undefined || owner === service) {
    throw new ConfigError(file, '$.instanceName', `instanceName is ${JSON.stringify(declared)}, but the container names ${service.name} ${instance} (its class name in camel case)`, fix);
  }
  throw new ConfigError(file, '$.instanceName', `instanceName is ${JSON.stringify(declared)}, inherited from ${owner.name || 'a class it extends'}, but the container names ${service.name} ${instance} (its class name in camel case)`, `register it by the object form, .ofLocal({ ${instance}: ${service.name} }), which names it by the key`);
}
