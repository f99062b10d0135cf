/**
 * Evaluates recorded AWS calls against each principal's synthesized IAM policy with a real policy
 * simulator (`@cloud-copilot/iam-simulate`), and finds which grants no recorded call uses.
 *
 * Calls are many (tens of thousands of partition keys); verdicts are few. Two requests evaluate alike
 * when they differ only in partition keys that match the same `dynamodb:LeadingKeys` patterns of
 * that principal's policies (IAM compares keys only against those patterns), so each request is
 * reduced to one key per pattern signature before it is simulated: exact, and a second or so.
 * A grant is used when the simulator allows some recorded request with that grant alone.
 */
import { isWildcardOnlyAction, runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import type { RecordedAwsCall } from '../../src/local/aws-calls/recorded-call.js';
import { globMatches } from './iam-glob.js';
import { iamRequestsOf, type IamRequest } from './iam-requests.js';
import type { PolicyStatement, Principal, TemplateWorld } from './template-world.js';

export interface Grant {
  principal: string;
  action: string;
  resource: string;
  /** The resource as the reasons file and the report name it (`{table:inbox}`, `{own log group}`). */
  label: string;
  condition?: PolicyStatement['Condition'];
}

export interface GrantUse extends Grant {
  /** Recorded calls whose requests this grant alone allows. */
  usedBy: number;
}

export interface Evaluation {
  /** Distinct calls read, and how many times they were made. */
  calls: number;
  callCount: number;
  /** Distinct IAM requests simulated (after the partition-key reduction). */
  simulated: number;
  denied: { request: IamRequest; result: string; example: RecordedAwsCall }[];
  /**
   * Requests whose ARN is of no resource type the service authorization reference lists for the
   * action (sns:Publish to a platform endpoint: the reference lists topics only, the SNS guide
   * documents endpoints under sns:Publish), evaluated without that check: IAM still matches the ARN.
   */
  unlistedResourceTypes: string[];
  /** Calls the check cannot translate or attribute: each is a failure. */
  problems: string[];
  grants: GrantUse[];
}

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function leadingKeyPatterns(principal: Principal): string[] {
  const patterns = new Set<string>();
  for (const { document } of principal.policies) {
    for (const statement of document.Statement) {
      for (const operator of Object.values(statement.Condition ?? {})) for (const pattern of asList(operator['dynamodb:LeadingKeys'] ?? [])) patterns.add(pattern);
    }
  }
  return [...patterns];
}

/** The request with one partition key per signature (which of the principal's patterns it matches), and the reduced request's identity. */
function reduced(request: IamRequest, patterns: readonly string[]): { request: IamRequest; key: string } {
  const keys = request.context['dynamodb:LeadingKeys'];
  if (!Array.isArray(keys)) return { request, key: JSON.stringify(request) };
  const bySignature = new Map<string, string>();
  for (const key of keys) {
    const signature = patterns.map((pattern) => (globMatches(pattern, key) ? '1' : '0')).join('');
    if (!bySignature.has(signature)) bySignature.set(signature, key);
  }
  const context = { ...request.context, 'dynamodb:LeadingKeys': [...bySignature.values()] };
  return { request: { ...request, context }, key: JSON.stringify({ ...request, context: { ...request.context, 'dynamodb:LeadingKeys': [...bySignature.keys()].sort() } }) };
}

async function allowed(world: TemplateWorld, principal: Principal, request: IamRequest, policies: { name: string; policy: unknown }[], unlisted?: string[]): Promise<string> {
  const simulation = {
    request: { principal: principal.roleArn, action: request.action, resource: { resource: request.resource, accountId: world.accountId }, contextVariables: request.context },
    identityPolicies: policies,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  const result = await runSimulation(simulation, {});
  if (result.resultType === 'error' && result.errors.message === 'no.resource.types') {
    unlisted?.push(`${request.action} ${request.resource}`);
    return runUnsafeSimulation(simulation, {});
  }
  if (result.resultType === 'error') return `error: ${result.errors.message}`;
  return result.overallResult;
}

/** An action without resource-level permissions is authorized on `*`: a policy naming an ARN never grants it (as on AWS). */
async function onAuthorizedResource(request: IamRequest): Promise<IamRequest> {
  const [service, action] = request.action.split(':') as [string, string];
  return (await isWildcardOnlyAction(service, action)) ? { ...request, resource: '*' } : request;
}

/** Every (action, resource) an Allow statement of the principal grants, with the statement's condition. */
export function grantsOf(world: TemplateWorld, principal: Principal): Grant[] {
  return principal.policies.flatMap(({ document }) =>
    document.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) =>
      asList(statement.Action).flatMap((action) =>
        asList(statement.Resource).map((resource) => ({ principal: principal.name, action, resource, label: world.label(resource, principal.name), ...(statement.Condition ? { condition: statement.Condition } : {}) })),
      ),
    ),
  );
}

export async function evaluate(calls: readonly RecordedAwsCall[], world: TemplateWorld, principals: readonly string[]): Promise<Evaluation> {
  const evaluation: Evaluation = { calls: calls.length, callCount: calls.reduce((sum, call) => sum + call.count, 0), simulated: 0, denied: [], unlistedResourceTypes: [], problems: [], grants: [] };
  const resolved = new Map<string, Principal>();
  for (const name of principals) {
    const principal = world.principal(name);
    if (principal) resolved.set(name, principal);
    else evaluation.problems.push(`no role in the template for ${name}`);
  }
  const patterns = new Map([...resolved].map(([name, principal]) => [name, leadingKeyPatterns(principal)]));
  const distinct = new Map<string, { request: IamRequest; example: RecordedAwsCall; calls: number }>();
  for (const call of calls) {
    const translation = iamRequestsOf(call, world);
    if ('problem' in translation) {
      evaluation.problems.push(`${call.principal} ${call.service}:${call.operation}: ${translation.problem}`);
      continue;
    }
    for (const translated of translation.requests) {
      const request = await onAuthorizedResource(translated);
      if (!resolved.has(request.principal)) {
        evaluation.problems.push(`${call.principal} ${call.service}:${call.operation}: no template role for ${request.principal}`);
        continue;
      }
      const { request: reducedRequest, key } = reduced(request, patterns.get(request.principal)!);
      const entry = distinct.get(key);
      if (entry) entry.calls += call.count;
      else distinct.set(key, { request: reducedRequest, example: call, calls: call.count });
    }
  }
  const uses = new Map<string, GrantUse[]>([...resolved].map(([name, principal]) => [name, grantsOf(world, principal).map((grant) => ({ ...grant, usedBy: 0 }))]));
  for (const { request, example, calls: count } of distinct.values()) {
    const principal = resolved.get(request.principal)!;
    evaluation.simulated += 1;
    const result = await allowed(world, principal, request, principal.policies.map(({ name, document }) => ({ name, policy: document })), evaluation.unlistedResourceTypes);
    if (result !== 'Allowed') {
      evaluation.denied.push({ request, result, example });
      continue;
    }
    // Which grants allow it on their own (cheap wildcard filter first, then the simulator).
    for (const grant of uses.get(request.principal)!) {
      if (!globMatches(grant.action, request.action, true) || !globMatches(grant.resource, request.resource)) continue;
      const alone = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: grant.action, Resource: grant.resource, ...(grant.condition ? { Condition: grant.condition } : {}) }] };
      if ((await allowed(world, principal, request, [{ name: 'grant', policy: alone }])) === 'Allowed') grant.usedBy += count;
    }
  }
  evaluation.grants = [...uses.values()].flat();
  return evaluation;
}
