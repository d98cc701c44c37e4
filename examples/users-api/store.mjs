// The example's data: five users, each with a password the ACL hides from everyone but admins.
export const users = new Map([1, 2, 3, 4, 5].map((id) => [id, { id, name: `user ${id}`, email: `u${id}@example.test`, password: 'secret' }]));
