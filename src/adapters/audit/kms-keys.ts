/**
 * Tenant keys of the audit pseudonyms from a KMS HMAC key (HMAC_256, GENERATE_VERIFY_MAC): the key
 * material never leaves KMS, a role can be granted `kms:GenerateMac` on it and nothing else, and every
 * use is in CloudTrail. A tenant's key is KMS's MAC of the tenant's message, asked once per tenant
 * per container (the pseudonymizer caches it).
 */
import { GenerateMacCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { AuditKeys } from '../../core/audit/ports.js';
import { tenantKeyMessage } from '../../core/audit/pseudonyms.js';

export class KmsAuditKeys implements AuditKeys {
  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async tenantKey(tenantId: string): Promise<Buffer> {
    const output = await this.client.send(new GenerateMacCommand({ KeyId: this.keyId, MacAlgorithm: 'HMAC_SHA_256', Message: tenantKeyMessage(tenantId) }));
    if (!output.Mac || output.Mac.length < 32) throw new Error('KMS GenerateMac returned no MAC');
    return Buffer.from(output.Mac);
  }
}
