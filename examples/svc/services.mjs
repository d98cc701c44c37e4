// The seed's services for SvcApi: every public method becomes a route /api/<service>/<method>.
import { z } from 'zod';

export class ValidationError extends Error {
  name = 'ValidationError';
}

export class NotFoundError extends Error {
  name = 'NotFoundError';
}

export class UserService {
  #users = new Map();

  // One object argument: every service of the container, by instance name.
  constructor(services) {
    this.services = services;
  }

  createUser({ name, email } = {}) {
    if (typeof name !== 'string' || name === '') throw new ValidationError('name is required');
    const user = { id: this.#users.size + 1, name, email };
    this.#users.set(user.id, user);
    return user;
  }

  listUsers() {
    return [...this.#users.values()];
  }

  _countUsers() {
    return this.#users.size; // a _private method: not a route
  }
}

export class AccountService {
  // The argument of getAccount is the query; its schema also describes it in api.openapi().
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  #accounts = [];

  constructor(services) {
    this.services = services;
  }

  getAllAccounts() {
    return this.#accounts;
  }

  getAccount({ accountId }) {
    const account = this.#accounts.find((candidate) => candidate.id === accountId);
    if (!account) throw new NotFoundError(`no account ${accountId}`);
    return account;
  }

  createAccount({ owner } = {}) {
    if (typeof owner !== 'string') throw new ValidationError('owner is required');
    const account = { id: `acc-${this.#accounts.length + 1}`, owner, users: this.services.userService._countUsers() };
    this.#accounts.push(account);
    return account;
  }
}

export class StatusService {
  getStatus() {
    return { status: 'ok' };
  }
}
