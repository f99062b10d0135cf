/**
 * The grants kept although no recorded call uses them, each with its reason: `docs/kept-grants.json`
 * (the docs page `docs/least-privilege.md` lists them, generated from the same file). An entry names
 * a function (or `*`, `fanout:*`), an action and a resource label (`*` wildcards allowed in all three).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import type { Grant } from './evaluate.js';
import { globMatches } from './iam-glob.js';

export const KEPT_GRANTS_FILE = join('docs', 'kept-grants.json');

const keptGrantSchema = z
  .object({
    function: z.string().min(1),
    action: z.string().min(1),
    resource: z.string().min(1),
    reason: z.string().min(20, 'a reason says why, in a sentence'),
  })
  .strict();
export type KeptGrant = z.infer<typeof keptGrantSchema>;

export const keptGrantsSchema = z.object({ description: z.string(), grants: z.array(keptGrantSchema) }).strict();

export function readKeptGrants(root: string): KeptGrant[] {
  return keptGrantsSchema.parse(JSON.parse(readFileSync(join(root, KEPT_GRANTS_FILE), 'utf8'))).grants;
}

/** The kept entry that covers a grant, if any. */
export function keptEntryFor(grant: Grant, kept: readonly KeptGrant[]): KeptGrant | undefined {
  return kept.find((entry) => globMatches(entry.function, grant.principal) && globMatches(entry.action, grant.action) && globMatches(entry.resource, grant.label));
}
