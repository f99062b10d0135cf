/**
 * Resolves the CloudFormation intrinsic functions of a synthesized template (Ref, Fn::GetAtt,
 * Fn::Join, Fn::Select, Fn::Split, Fn::Sub and the pseudo parameters) with the values of one world:
 * the local runtime's resources (the deployed bundles' environment) or the template's own
 * resources named after their logical ids (the least-privilege check). Anything else is an error
 * naming where it is: a template this code cannot read is never guessed at.
 */

/** The value of a resource's `Ref` (attribute undefined) or `Fn::GetAtt` attribute; undefined when the world has none. */
export type AttributeLookup = (logicalId: string, attribute?: string) => string | undefined;

export interface CfnWorld {
  lookup: AttributeLookup;
  region: string;
  accountId: string;
}

export class UnresolvableTemplateValue extends Error {
  override readonly name = 'UnresolvableTemplateValue';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function pseudo(name: string, world: CfnWorld): string | undefined {
  return { 'AWS::Region': world.region, 'AWS::AccountId': world.accountId, 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': 'local', 'AWS::NoValue': '' }[name];
}

function reference(logicalId: string, attribute: string | undefined, world: CfnWorld, path: string): string {
  const value = attribute === undefined ? (pseudo(logicalId, world) ?? world.lookup(logicalId)) : world.lookup(logicalId, attribute);
  if (value === undefined) throw new UnresolvableTemplateValue(`${path}: no value for ${attribute === undefined ? `Ref ${logicalId}` : `${logicalId}.${attribute}`}`);
  return value;
}

/** `value` with every intrinsic function replaced by its value in `world` (strings, arrays and objects in between kept). */
export function resolveCfn(value: unknown, world: CfnWorld, path = '$'): unknown {
  if (Array.isArray(value)) return value.map((item, index) => resolveCfn(item, world, `${path}[${index}]`));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const [key] = keys as [string];
    const argument = value[key];
    const text = (item: unknown, at: string): string => {
      const resolved = resolveCfn(item, world, at);
      if (typeof resolved !== 'string') throw new UnresolvableTemplateValue(`${at}: expected a string, got ${JSON.stringify(resolved)}`);
      return resolved;
    };
    switch (key) {
      case 'Ref':
        return reference(String(argument), undefined, world, path);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? (argument as string[]) : String(argument).split(/\.(.+)/);
        return reference(String(logicalId), String(attribute), world, path);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        const resolved = resolveCfn(parts, world, `${path}.Fn::Join`);
        if (!Array.isArray(resolved)) throw new UnresolvableTemplateValue(`${path}: Fn::Join of a non-list`);
        return resolved.map((part, index) => (typeof part === 'string' ? part : text(part, `${path}.Fn::Join[${index}]`))).join(separator);
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return text(source, `${path}.Fn::Split`).split(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [number | string, unknown];
        const resolved = resolveCfn(list, world, `${path}.Fn::Select`);
        if (!Array.isArray(resolved)) throw new UnresolvableTemplateValue(`${path}: Fn::Select of a non-list`);
        return resolved[Number(index)];
      }
      case 'Fn::Sub': {
        const [template, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [string, Record<string, unknown>];
        return template.replace(/\$\{([^}]+)\}/g, (_match, name: string) => {
          if (name in variables) return text(variables[name], `${path}.Fn::Sub.${name}`);
          const [logicalId, attribute] = name.split(/\.(.+)/);
          return reference(logicalId!, attribute, world, path);
        });
      }
      default:
        if (key.startsWith('Fn::') || key === 'Condition') throw new UnresolvableTemplateValue(`${path}: ${key} is not resolved here`);
    }
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveCfn(item, world, `${path}.${key}`)]));
}
