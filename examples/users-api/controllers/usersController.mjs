import { users } from '../store.mjs';

// Each handler runs only after BearerJWT allowed the request; `acl.filter` keeps the granted attributes.
const visible = (res, data) => res.locals.oas.acl?.filter(data) ?? data;

export function listUsers(_req, res) {
  res.status(200).json([...users.values()].map((user) => visible(res, user)));
}

export function createUser(req, res) {
  const user = { id: users.size + 1, ...req.body };
  users.set(user.id, user);
  res.status(201).json(visible(res, user));
}

export function getUser(req, res) {
  const user = users.get(Number(res.locals.oas.params.userId));
  if (!user) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
  res.status(200).json(visible(res, user));
}

export function updateUser(req, res) {
  const user = users.get(Number(res.locals.oas.params.userId));
  if (!user) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
  Object.assign(user, visible(res, req.body ?? {}));
  res.status(200).json(visible(res, user));
}

export function deleteUser(_req, res) {
  users.delete(Number(res.locals.oas.params.userId));
  res.status(204).end();
}
