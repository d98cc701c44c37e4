export function getStatus(_req, res) {
  res.status(200).json({ status: 'ok' });
}
