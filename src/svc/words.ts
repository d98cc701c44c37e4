/**
 * Splits an identifier into words: `HTTPService` -> HTTP, Service; `getAllAccounts` -> get, All,
 * Accounts. A run of capitals is one word (an acronym) up to the capital that starts the next.
 */
export function words(identifier: string): string[] {
  return identifier.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [];
}

/** `UserService` -> `userService`, `HTTPService` -> `httpService`. */
export function camelCase(identifier: string): string {
  return words(identifier)
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join('');
}

/** `UserService` -> `user-service`, `createUser` -> `create-user`. */
export function kebabCase(identifier: string): string {
  return words(identifier)
    .map((word) => word.toLowerCase())
    .join('-');
}
