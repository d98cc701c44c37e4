import { monthlyReport } from '../store.mjs';

export function getMonthlyReport(_req, res) {
  const { userId, year, month } = res.locals.oas.params;
  const report = monthlyReport(Number(userId), Number(year), Number(month));
  if (!report) return res.status(404).json({ error: 'NotFound', message: 'no such user' });
  res.status(200).json(report);
}
