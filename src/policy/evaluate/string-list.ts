/** Whether a value the policy returned is a list of strings (the shape of attributes, scopes, reasons and plan values). */
export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
