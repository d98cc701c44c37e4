// The example's data: five users, each with a password the ACL hides from everyone but admins,
// and the transfers of two accounts.
export const users = new Map([1, 2, 3, 4, 5].map((id) => [id, { id, name: `user ${id}`, email: `u${id}@example.test`, password: 'secret' }]));

export const transfers = [
  { id: 't1', accountId: 'acc-1', amount: 25 },
  { id: 't2', accountId: 'acc-2', amount: 40 },
  { id: 't3', accountId: 'acc-1', amount: -10 },
];

/** What both hosts answer for GET /transfers?accountId=... */
export function transfersOf(accountId) {
  return transfers.filter((transfer) => transfer.accountId === accountId);
}

/** What both hosts answer for GET /users/{userId}/reports/{year}-{month}; undefined for an unknown user. */
export function monthlyReport(userId, year, month) {
  if (!users.has(userId)) return undefined;
  return { userId, year, month, logins: (userId * 7 + month) % 31 };
}
