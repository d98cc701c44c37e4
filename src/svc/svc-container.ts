import { camelCase } from './words';

/** A service class; a constructor with one argument receives every service of the container. */
export type ServiceClass = new (services: Record<string, object>) => object;

/**
 * Holds service classes and builds one instance of each. Every constructor gets the same object,
 * whose properties resolve to the instances lazily, so registration order does not matter and
 * services may refer to each other in cycles (as long as a constructor keeps the object for
 * later rather than calling into a service that is still being built).
 */
export class SvcContainer {
  private readonly classes = new Map<string, ServiceClass>();
  private instances: Record<string, object> | undefined;

  ofLocal(service: ServiceClass): this {
    return this.add(service);
  }

  andLocal(service: ServiceClass): this {
    return this.add(service);
  }

  /** The instances keyed by instance name (`UserService` -> `userService`); built once. */
  services(): Record<string, object> {
    this.instances ??= this.build();
    return this.instances;
  }

  private add(service: unknown): this {
    if (!isClass(service)) throw new TypeError(`SvcContainer: ${describe(service)} is not a class; pass the class itself, e.g. .ofLocal(UserService)`);
    if (this.instances) throw new Error('SvcContainer: services() was already called; register every class before building');
    const name = camelCase(service.name);
    if (name === '') throw new TypeError('SvcContainer: the class has no name to route by; give it a name');
    const existing = this.classes.get(name);
    if (existing === service) throw new Error(`SvcContainer: ${service.name} is registered twice`);
    if (existing) throw new Error(`SvcContainer: ${service.name} and ${existing.name} both have the instance name ${name}`);
    this.classes.set(name, service);
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
      const created = new (this.classes.get(name)!)(registry);
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
