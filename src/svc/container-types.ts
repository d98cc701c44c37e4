/**
 * The types SvcContainer computes from the classes it is given. TypeScript cannot read a class's
 * name, so `ofLocal(OrderService)` knows the instance name `orderService` only when the class
 * declares it (`static readonly instanceName = 'orderService'`, checked against the class name at
 * run time) or when the object form names it (`{ orderService: OrderService }`). A class that
 * declares no name still gets typed members: every name reads as the merged shape of those
 * classes (see MergedInstances). Nothing here exists at run time.
 */

/** A service class: a constructor with no argument, or with one: the services it uses. */
export type ServiceClass = new (services: never) => object;

/** The instance name a class declares as a literal (`static readonly instanceName = 'orderService'`); never if none. */
export type DeclaredInstanceName<C> = C extends { readonly instanceName: infer N extends string } ? (string extends N ? never : N) : never;

/** The instances of `{ <instance name>: Class }`, by instance name. */
export type InstancesOf<M extends Record<string, ServiceClass>> = { [K in keyof M]: InstanceType<M[K]> };

/** The instance of a class that declares its name, under that name; `{}` for one that does not. */
export type NamedInstanceOf<C extends ServiceClass> = [DeclaredInstanceName<C>] extends [never] ? {} : { [K in DeclaredInstanceName<C>]: InstanceType<C> };

/** The instance of a class that declares no name; never for one that does. */
export type UnnamedInstanceOf<C extends ServiceClass> = [DeclaredInstanceName<C>] extends [never] ? InstanceType<C> : never;

/** The services object a constructor declares (`constructor(deps: { userService: UserService })`); `{}` when it takes none or any. */
export type DependenciesOf<C> = C extends new (services: infer P) => object ? (0 extends 1 & P ? {} : unknown extends P ? {} : NonNullable<P>) : {};

/** The dependencies of every class of `{ <instance name>: Class }`, as one object type. */
export type DependenciesOfMap<M extends Record<string, ServiceClass>> = { [K in keyof M]: (each: DependenciesOf<M[K]>) => void }[keyof M] extends (all: infer I) => void ? I : never;

/** `A & B` shown as one object type in hovers and messages. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * What every name of `services()` reads as when some classes declare no name: each member any
 * of those classes has, typed as the classes that have it type it (a member two classes share has
 * the union of their types). Not their intersection: classes with private members (a constructor
 * that keeps `private readonly deps`) intersect to never. Not their union: a method that only one
 * class has could not be called. What is not checked is the name: `services().orderServce`
 * type-checks and is undefined at run time; a class that declares its name is checked.
 */
export type MergedInstances<U> = { [K in U extends unknown ? keyof U : never]: U extends unknown ? (K extends keyof U ? U[K] : never) : never };

/** The type of `services()`: the named instances, and an index of the merged shape when some classes declare no name. */
export type ContainerServices<S, U> = [U] extends [never] ? S : S & { readonly [instanceName: string]: MergedInstances<U> };

/**
 * The names of the services some constructor needs that the container does not give it: a name
 * the container holds with an instance of another type; a required name it lacks (when every
 * class declares its name); a required name no unnamed class could fill (when some do not, the
 * name itself cannot be checked, only that a class of that type is registered).
 */
export type UnmetDependencies<S, U, R> = {
  [K in keyof R]-?: K extends string
    ? string extends K
      ? never // an index signature names no service
      : K extends keyof S
        ? S[K] extends R[K] ? never : K
        : undefined extends R[K]
          ? never
          : [U extends unknown ? (U extends R[K] ? U : never) : never] extends [never] ? K : never
    : never;
}[keyof R];

/** `unknown` when every dependency is met; else a property naming the unmet ones, which the container lacks, so the compiler shows them. */
export type DependencyCheck<S, U, R> = [UnmetDependencies<S, U, R>] extends [never] ? unknown : { readonly 'services a constructor needs that the container lacks or holds with another type': UnmetDependencies<S, U, R> };
