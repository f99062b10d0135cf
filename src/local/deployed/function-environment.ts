/**
 * Each bundled function's own environment, as Lambda gives every function its own process: while a
 * bundle loads and while it runs an invocation (and whatever that invocation awaits: the SDK reads
 * its endpoint, region and credentials variables lazily, at the first request), `process.env`
 * answers with that function's variables on top of the process's. Two bundled runtimes in one
 * process (a test file with a second runtime of other settings) never see each other's endpoints.
 * The process's own variables are untouched: outside a function's context `process.env` is as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<Readonly<Record<string, string>>>();
let installed = false;

/** Makes `process.env` read the running function's variables first (once per process). */
function install(): void {
  if (installed) return;
  installed = true;
  const own = (name: string | symbol) => (typeof name === 'string' ? current.getStore()?.[name] : undefined);
  process.env = new Proxy(process.env, {
    get: (target, name) => own(name) ?? Reflect.get(target, name),
    has: (target, name) => own(name) !== undefined || Reflect.has(target, name),
    ownKeys: (target) => [...new Set([...Reflect.ownKeys(target), ...Object.keys(current.getStore() ?? {})])],
    getOwnPropertyDescriptor: (target, name) => {
      const value = own(name);
      return value === undefined ? Reflect.getOwnPropertyDescriptor(target, name) : { value, writable: true, enumerable: true, configurable: true };
    },
  });
}

/** Runs `work` (a bundle's import, or one invocation) with `environment` as its function's variables. */
export function withFunctionEnvironment<T>(environment: Readonly<Record<string, string>>, work: () => T): T {
  install();
  return current.run(environment, work);
}
