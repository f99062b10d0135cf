/**
 * The least-privilege check (docs/least-privilege.md) fails on a grant that appears without a
 * reason: a statement added to a function's role in the CDK app comes out of the synthesized local
 * stack as a grant of that function that no recorded call uses, and no entry of
 * docs/kept-grants.json covers it, which `test/least-privilege/` refuses ("UNUSED, no reason").
 */
import { resolve } from 'node:path';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { buildLocalStack, resourceMap, synthesizeLocalStack } from '../../scripts/deployed/local-stack.js';
import { evaluate } from '../../scripts/least-privilege/evaluate.js';
import { keptEntryFor, readKeptGrants } from '../../scripts/least-privilege/kept-grants.js';
import { TemplateWorld } from '../../scripts/least-privilege/template-world.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('the least-privilege check on a new grant', () => {
  it('reports a statement added to REST write (DeleteItem on the Inbox table) as unused with no reason, while a kept grant keeps its reason', async () => {
    // Prepare: the local stack with one statement more on the internet-facing write function.
    const built = buildLocalStack({ bundle: false });
    const restWrite = built.inbox.node.findAll().find((node): node is HandlerFunction => node instanceof HandlerFunction && node.handlerName === 'rest-write')!;
    restWrite.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:DeleteItem'], resources: [built.inbox.tables.tables.inbox.table.tableArn] }));
    const { template } = synthesizeLocalStack(built);
    const world = new TemplateWorld(template, resourceMap(built, template));

    // Act: no call recorded, so every grant is unused; the verdict is the reasons file's.
    const { grants, problems } = await evaluate([], world, ['rest-write', 'channel:email']);
    const kept = readKeptGrants(root);
    const added = grants.filter((grant) => grant.principal === 'rest-write' && grant.action === 'dynamodb:DeleteItem' && grant.label === '{table:inbox}');
    const keptOne = grants.find((grant) => grant.principal === 'channel:email' && grant.action === 'dynamodb:DeleteItem' && grant.label === '{table:idempotency}');

    // Assess
    expect(problems).toEqual([]);
    expect(added).toHaveLength(1);
    expect(added.map((grant) => ({ usedBy: grant.usedBy, kept: keptEntryFor(grant, kept) }))).toEqual([{ usedBy: 0, kept: undefined }]);
    expect(keptOne && keptEntryFor(keptOne, kept)?.reason).toMatch(/throttled/);
  });
});
