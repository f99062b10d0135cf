/**
 * Filters and tabs of the inbox: a category or tags declared in the catalog resolve to the types
 * that carry them, intersected with any `type` list, so every filter reaches the store as a set of types.
 */
import type { NotificationType } from '../ports/notification-type.js';

export type CatalogEntry = Pick<NotificationType, 'detailType' | 'category' | 'tags' | 'audience'>;

export interface TabQuery {
  types?: readonly string[];
  category?: string;
  tags?: readonly string[];
}

/** The types the tab shows; undefined = every type (no type filter). Unknown names match nothing. */
export function typesOfTab(catalog: readonly CatalogEntry[], tab: TabQuery): string[] | undefined {
  if (tab.category === undefined && tab.tags === undefined) return tab.types === undefined ? undefined : [...tab.types];
  return catalog
    .filter((type) => type.audience !== 'none')
    .filter((type) => tab.types === undefined || tab.types.includes(type.detailType))
    .filter((type) => tab.category === undefined || type.category === tab.category)
    .filter((type) => tab.tags === undefined || tab.tags.every((tag) => type.tags?.includes(tag) ?? false))
    .map((type) => type.detailType);
}

/** For counts: the types a tab leaves out (counts exclude rather than include, like muted types). */
export function typesOutsideTab(catalog: readonly CatalogEntry[], tab: TabQuery): string[] | undefined {
  const inTab = typesOfTab(catalog, tab);
  if (inTab === undefined) return undefined;
  return catalog.filter((type) => type.audience !== 'none' && !inTab.includes(type.detailType)).map((type) => type.detailType);
}
