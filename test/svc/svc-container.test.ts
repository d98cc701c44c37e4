import { SvcApi, SvcContainer } from '../../src/svc';
import { configErrorOf } from '../helpers/config-error-of';

class UserService {
  constructor(readonly services: Record<string, object>) {}
  createUser() {
    return 'user';
  }
}
class AccountService {
  constructor(readonly services: Record<string, object>) {}
  users() {
    return this.services.userService as UserService;
  }
}
class HTTPService {}

test('instances are keyed by the class name in camel case by words', () => {
  const services = new SvcContainer().ofLocal(UserService).andLocal(AccountService).andLocal(HTTPService).services();
  expect(Object.keys(services)).toEqual(['userService', 'accountService', 'httpService']);
  expect(services.userService).toBeInstanceOf(UserService);
  expect(services.httpService).toBeInstanceOf(HTTPService);
});

test('services() builds each instance once', () => {
  const container = new SvcContainer().ofLocal(UserService);
  expect(container.services().userService).toBe(container.services().userService);
});

test('a constructor receives every service, whatever the registration order', () => {
  for (const container of [new SvcContainer().ofLocal(AccountService).andLocal(UserService), new SvcContainer().ofLocal(UserService).andLocal(AccountService)]) {
    const services = container.services();
    expect((services.accountService as AccountService).users()).toBe(services.userService);
  }
});

test('cycles work when constructors keep the services object for later', () => {
  class Ping {
    constructor(readonly services: Record<string, object>) {}
    other() {
      return this.services.pong;
    }
  }
  class Pong {
    constructor(readonly services: Record<string, object>) {}
    other() {
      return this.services.ping;
    }
  }
  const services = new SvcContainer().ofLocal(Ping).andLocal(Pong).services();
  expect((services.ping as Ping).other()).toBe(services.pong);
  expect((services.pong as Pong).other()).toBe(services.ping);
});

test('a constructor that calls into a service still being built gets a clear error, not a stack overflow', () => {
  class Eager {
    readonly peer: object;
    constructor(services: Record<string, object>) {
      this.peer = services.eagerToo!;
    }
  }
  class EagerToo {
    readonly peer: object;
    constructor(services: Record<string, object>) {
      this.peer = services.eager!;
    }
  }
  expect(() => new SvcContainer().ofLocal(Eager).andLocal(EagerToo).services()).toThrow('SvcContainer: eager -> eagerToo -> eager: a constructor uses a service that is still being built');
});

test('the same class twice is an error', () => {
  expect(() => new SvcContainer().ofLocal(UserService).andLocal(UserService)).toThrow('SvcContainer: UserService is registered twice');
});

test('two classes with the same instance name are an error', () => {
  const Other = { UserService: class UserService {} }.UserService;
  expect(() => new SvcContainer().ofLocal(UserService).andLocal(Other)).toThrow('both have the instance name userService');
});

test.each([
  ['an empty object', {}, 'an empty object adds no service'],
  ['an array', [], 'an object is not a class'],
  ['a plain function', function UserService() {}, 'the function UserService is not a class'],
  ['an arrow function', () => undefined, 'is not a class'],
  ['a string', 'UserService', '"UserService" is not a class'],
  ['undefined', undefined, 'is not a class'],
])('%s is not a class', (_name, value, message) => {
  expect(() => new SvcContainer().ofLocal(value as never)).toThrow(TypeError);
  expect(() => new SvcContainer().ofLocal(value as never)).toThrow(message);
});

test('registering after services() is an error', () => {
  const container = new SvcContainer().ofLocal(UserService);
  container.services();
  expect(() => container.andLocal(AccountService)).toThrow('services() was already called');
});

describe('typed registration: { <instance name>: Class }', () => {
  class Users {
    name(id: number) {
      return `user ${id}`;
    }
  }
  // A constructor typed with the services it uses, as a TypeScript user writes it.
  class Orders {
    constructor(private readonly deps: { userService: Users }) {}
    ownerOf(order: number) {
      return this.deps.userService.name(order % 10);
    }
  }

  test('services() is typed from the classes added, and constructors get the typed services', () => {
    const services = new SvcContainer().ofLocal({ userService: Users }).andLocal({ orderService: Orders }).services();
    // No cast: `orderService` is an Orders, `ownerOf` returns a string.
    const owner: string = services.orderService.ownerOf(42);
    expect(owner).toBe('user 2');
    // @ts-expect-error no service of that name was added
    expect(services.paymentService).toBeUndefined();
  });

  test('the key is the instance name, and the routes follow it', () => {
    const services = new SvcContainer().ofLocal({ customers: Users }).services();
    expect(Object.keys(services)).toEqual(['customers']);
    expect(services.customers.name(1)).toBe('user 1');
    expect(Object.keys(new SvcApi().from(new SvcContainer().ofLocal({ customers: Users })).openapi().paths ?? {})).toEqual(['/api/customers/name']);
  });

  test('a key not in camel case is refused with the name to write', () => {
    expect(() => new SvcContainer().ofLocal({ UserService: Users })).toThrow('SvcContainer: the instance name UserService is not in camel case by words; write userService: Users');
    expect(() => new SvcContainer().ofLocal({ userService: 'Users' as unknown as typeof Users })).toThrow('"Users" is not a class');
  });
});

describe('the class form typed by a declared name: static readonly instanceName (issue 29, section 3)', () => {
  class Users {
    static readonly instanceName = 'users';
    name(id: number) {
      return `user ${id}`;
    }
  }
  class OrderBook {
    static readonly instanceName = 'orderBook';
    constructor(private readonly deps: { users: Users }) {}
    ownerOf(order: number) {
      return this.deps.users.name(order % 10);
    }
  }

  test('a class that declares its instance name is registered and typed under it', () => {
    const services = new SvcContainer().ofLocal(Users).andLocal(OrderBook).services();
    const owner: string = services.orderBook.ownerOf(42);
    expect(owner).toBe('user 2');
    expect(Object.keys(services)).toEqual(['users', 'orderBook']);
    // @ts-expect-error every class declares its name, so the names are checked
    expect(services.orderBok).toBeUndefined();
  });

  test('a declared name that is not the class name in camel case is a ConfigError naming the name to write', () => {
    class Ledger {
      static readonly instanceName = 'ledgerService';
    }
    const error = configErrorOf(() => new SvcContainer().ofLocal(Ledger));
    expect(error.file).toBe('<class Ledger>');
    expect(error.path).toBe('$.instanceName');
    expect(error.problem).toBe('instanceName is "ledgerService", but the container names Ledger ledger (its class name in camel case)');
    expect(error.fix).toBe("write static readonly instanceName = 'ledger' in Ledger, or leave it out");
  });

  test("a subclass inherits its parent's declared name, as its type does (TypeScript lets it declare no other): the object form registers it", () => {
    class Admins extends Users {}
    const error = configErrorOf(() => new SvcContainer().andLocal(Admins));
    expect(error.problem).toBe('instanceName is "users", inherited from Users, but the container names Admins admins (its class name in camel case)');
    expect(error.fix).toBe('register it by the object form, .ofLocal({ admins: Admins }), which names it by the key');
    expect(new SvcContainer().ofLocal({ admins: Admins }).services().admins.name(1)).toBe('user 1');
  });

  test('a declared name that is no string is a ConfigError; the object form names by its keys and does not read it', () => {
    class Odd {
      static readonly instanceName = 42;
    }
    expect(configErrorOf(() => new SvcContainer().ofLocal(Odd)).problem).toBe('instanceName must be a string: the instance name');
    class Named {
      static readonly instanceName = 'somethingElse';
    }
    expect(Object.keys(new SvcContainer().ofLocal({ named: Named }).services())).toEqual(['named']);
  });
});
