/** IAM's `*` and `?` wildcards (StringLike conditions and resource ARNs): a whole-string match. */
export function globMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern.split('').map((character) => (character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}
