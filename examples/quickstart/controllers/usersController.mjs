// BearerJWT has decided before this runs: res.locals.oas.acl.filter keeps the granted attributes.
export function getUser(req, res) {
  const user = { id: res.locals.oas.params.userId, name: `user ${res.locals.oas.params.userId}`, password: 'secret' };
  res.json(res.locals.oas.acl.filter(user));
}
