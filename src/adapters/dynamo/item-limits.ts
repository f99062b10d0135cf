/** DynamoDB's per-item limit, as both DynamoDB and dynalite report it. */

/** The answer to a write that would make the item larger than 400 KB (a retry cannot help). */
export function isItemTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException' && /exceeded the maximum allowed size/i.test(error.message);
}
