/** `className` props add to the components' own classes, never replace them (the stylesheet keys on those). */
export function classNames(...names: ReadonlyArray<string | false | null | undefined>): string {
  return names.filter(Boolean).join(' ');
}
