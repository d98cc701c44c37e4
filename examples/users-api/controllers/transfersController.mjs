import { transfersOf } from '../store.mjs';

export function listTransfers(_req, res) {
  res.status(200).json(transfersOf(res.locals.oas.params.accountId));
}
