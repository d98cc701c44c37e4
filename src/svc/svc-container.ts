import { z } from 'zod';
import { parseWith } from '../policy/compile/parse-with';
import type { SchemaMatches } from '../policy/compile/schema-matches';
import { checkInstanceName } from './class-statics';
import type { ContainerServices, DependenciesOf, DependenciesOfMap, DependencyCheck, Simplify, InstancesOf, NamedInstanceOf, ServiceClass, UnnamedInstanceOf } from './container-types';
import { isPlainObject } from './interceptors';
import { camelCase } from './words';

export type { InstancesOf, ServiceClass } from './container-types';

/** How `ofLocal` and `andLocal` register their classes. */
export interface RegisterOptions {
  /**
   * `false`: the services are built and injected into the other services' constructors, but none
   * of their methods is a route (an audit log, a repository). Default true.
   */
  routes?: boolean;
}

const registerOptionsSchema = z.object({ routes: z.boolean({ error: 'routes must be true or false' }).optional() }, { error: 'the options must be an object: { routes: false }' }).strict();
// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof registerOptionsSchema, RegisterOptions>;

/**
 * Holds service classes and builds one instance of each. Every constructor gets the same object,
 * whose properties resolve to the instances lazily, so registration order does not matter and
 * services may refer to each other in cycles (as long as a constructor keeps the object for
 * later rather than calling into a service that is still being built).
 *
 * Types: `S` the instances whose names are known (declared by `static readonly instanceName` or
 * given by the object form), `U` the instances of classes that declare no name, `R` the services
 * the constructors declare they need; `services()` and `SvcApi.from` check `R` against the rest.
 */
export class SvcContainer<S extends object = {}, U extends object = never, R = unknown> {
  private readonly classes = new Map<string, ServiceClass>();
  private readonly withoutRoutes = new Set<string>();
  private instances: Record<string, object> | undefined;

  /**
   * Adds service classes: `ofLocal(UserService)` names the instance after the class
   * (`userService`), and types it under that name when the class declares it
   * (`static readonly instanceName = 'userService'`); `ofLocal({ userService: UserService,
   * orderService: OrderService })` names them by the keys, and types `services()` from them.
   * `ofLocal(AuditService, { routes: false })` registers a service for injection only: its
   * methods are no routes.
   */
  ofLocal<M extends Record<string, ServiceClass>>(services: M, options?: RegisterOptions): SvcContainer<Simplify<S & InstancesOf<M>>, U, R & DependenciesOfMap<M>>;
  ofLocal<C extends ServiceClass>(service: C, options?: RegisterOptions): SvcContainer<Simplify<S & NamedInstanceOf<C>>, U | UnnamedInstanceOf<C>, R & DependenciesOf<C>>;
  ofLocal(service: unknown, options?: RegisterOptions): unknown {
    return this.addEach(service, options, 'ofLocal');
  }

  /** The same as ofLocal, to read well in a chain. */
  andLocal<M extends Record<string, ServiceClass>>(services: M, options?: RegisterOptions): SvcContainer<Simplify<S & InstancesOf<M>>, U, R & DependenciesOfMap<M>>;
  andLocal<C extends ServiceClass>(service: C, options?: RegisterOptions): SvcContainer<Simplify<S & NamedInstanceOf<C>>, U | UnnamedInstanceOf<C>, R & DependenciesOf<C>>;
  andLocal(service: unknown, options?: RegisterOptions): unknown {
    return this.addEach(service, options, 'andLocal');
  }

  /**
   * The instances keyed by instance name (`UserService` -> `userService`); built once. Does not
   * compile when a constructor declares a service the container does not hold (the message names
   * it), so a misspelt dependency is found here rather than as `undefined` in a method.
   */
  services(this: SvcContainer<S, U, R> & DependencyCheck<S, U, R>): ContainerServices<S, U> {
    this.instances ??= this.build();
    return this.instances as ContainerServices<S, U>;
  }

  /**
   * The instance names registered with `routes: false`, for SvcApi.
   * @internal
   */
  servicesWithoutRoutes(): ReadonlySet<string> {
    return this.withoutRoutes;
  }

  private addEach(value: unknown, options: unknown, method: string): this {
    const { routes = true } = parseWith(registerOptionsSchema, options ?? {}, `<SvcContainer.${method} options>`, [], `pass { routes: false } to register for injection only, or no options`);
    if (!isPlainObject(value)) return this.add(value, undefined, routes);
    if (Object.keys(value).length === 0) throw new TypeError('SvcContainer: an empty object adds no service; pass the class itself, e.g. .ofLocal(UserService), or .ofLocal({ userService: UserService })');
    for (const [name, service] of Object.entries(value)) this.add(service, name, routes);
    return this;
  }

  private add(service: unknown, named: string | undefined, routes: boolean): this {
    if (!isClass(service)) throw new TypeError(`SvcContainer: ${describe(service)} is not a class; pass the class itself, e.g. .ofLocal(UserService) or .ofLocal({ userService: UserService })`);
    if (this.instances) throw new Error('SvcContainer: services() was already called; register every class before building');
    if (named !== undefined && camelCase(named) !== named) {
      throw new TypeError(`SvcContainer: the instance name ${named} is not in camel case by words; write ${camelCase(named) || 'a name with letters'}: ${service.name}`);
    }
    const name = named ?? camelCase(service.name);
    if (name === '') throw new TypeError('SvcContainer: the class has no name to route by; give it a name');
    if (named === undefined) checkInstanceName(service, name);
    const existing = this.classes.get(name);
    if (existing === service) throw new Error(`SvcContainer: ${service.name} is registered twice`);
    if (existing) throw new Error(`SvcContainer: ${service.name} and ${existing.name} both have the instance name ${name}`);
    this.classes.set(name, service);
    if (!routes) this.withoutRoutes.add(name);
    return this;
  }

  private build(): Record<string, object> {
    const built = new Map<string, object>();
    const building: string[] = [];
    const registry: Record<string, object> = {};
    const instance = (name: string): object => {
      const done = built.get(name);
      if (done) return done;
      if (building.includes(name)) {
        throw new Error(`SvcContainer: ${[...building, name].join(' -> ')}: a constructor uses a service that is still being built; keep the services object and use it in methods`);
      }
      building.push(name);
      // The registry holds every service; each constructor's type names the ones it uses.
      const created = new (this.classes.get(name)! as new (services: Record<string, object>) => object)(registry);
      building.pop();
      built.set(name, created);
      return created;
    };
    for (const name of this.classes.keys()) Object.defineProperty(registry, name, { get: () => instance(name), enumerable: true });
    return Object.fromEntries([...this.classes.keys()].map((name) => [name, instance(name)]));
  }
}

function isClass(value: unknown): value is ServiceClass {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

function describe(value: unknown): string {
  if (typeof value === 'function') return `the function ${value.name || '(anonymous)'}`;
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : JSON.stringify(value) ?? String(value);
}
