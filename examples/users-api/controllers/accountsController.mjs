export function getAccount(_req, res) {
  res.status(200).json({ id: res.locals.oas.params.accountId, balance: 100 });
}
