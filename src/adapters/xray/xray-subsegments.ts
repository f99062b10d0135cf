/**
 * X-Ray subsegments with annotations, sent to the Lambda X-Ray daemon over UDP as the X-Ray SDK does.
 * Not Powertools Tracer: it pulls aws-xray-sdk-core, semver and cls-hooked (~115 KB minified) into
 * every bundle, which puts the fan-out and delivery bundles over their 300 KB budget; annotating one
 * subsegment per event needs only the trace header and the daemon's address.
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';

export interface TraceHeader {
  traceId: string;
  parentId: string;
  sampled: boolean;
}

/** `Root=1-…;Parent=…;Sampled=1` (Lambda's `_X_AMZN_TRACE_ID`); undefined without a root and parent. */
export function parseTraceHeader(header: string | undefined): TraceHeader | undefined {
  if (!header) return undefined;
  const fields = new Map(header.split(';').map((part) => part.split('=', 2) as [string, string]));
  const traceId = fields.get('Root');
  const parentId = fields.get('Parent');
  if (!traceId || !parentId) return undefined;
  return { traceId, parentId, sampled: fields.get('Sampled') === '1' };
}

/** `host:port`, or `udp:host:port tcp:host:port` (AWS_XRAY_DAEMON_ADDRESS): the UDP address. */
export function parseDaemonAddress(address: string | undefined): { host: string; port: number } | undefined {
  if (!address) return undefined;
  const udp = address.split(/[\s,]+/).find((part) => part.startsWith('udp:')) ?? address.split(/[\s,]+/)[0]!;
  const match = /^(?:udp:)?([^:]+):(\d+)$/.exec(udp);
  return match ? { host: match[1]!, port: Number(match[2]) } : undefined;
}

export class XRaySubsegments {
  private socket: Socket | undefined;

  constructor(
    private readonly daemonAddress: string | undefined = process.env.AWS_XRAY_DAEMON_ADDRESS,
    private readonly traceHeader: () => string | undefined = () => process.env._X_AMZN_TRACE_ID,
  ) {}

  /** Runs `work` and reports it as a subsegment of the invocation, with `annotations` (searchable in X-Ray). */
  async traced<T>(name: string, annotations: Record<string, string>, work: () => Promise<T>): Promise<T> {
    const header = parseTraceHeader(this.traceHeader());
    const daemon = parseDaemonAddress(this.daemonAddress);
    if (!header?.sampled || !daemon) return work();
    const startTime = Date.now() / 1000;
    let fault = false;
    try {
      return await work();
    } catch (error) {
      fault = true;
      throw error;
    } finally {
      const subsegment = { id: randomBytes(8).toString('hex'), name, start_time: startTime, end_time: Date.now() / 1000, trace_id: header.traceId, parent_id: header.parentId, type: 'subsegment', annotations, ...(fault ? { fault: true } : {}) };
      this.send(daemon, `{"format":"json","version":1}\n${JSON.stringify(subsegment)}`);
    }
  }

  /** Fire and forget: a lost trace document never costs a delivery. */
  private send(daemon: { host: string; port: number }, document: string): void {
    if (!this.socket) {
      this.socket = createSocket('udp4');
      this.socket.unref();
      this.socket.on('error', () => undefined);
    }
    this.socket.send(document, daemon.port, daemon.host, () => undefined);
  }
}
