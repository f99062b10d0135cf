/** A channel state store that answers one fixed state and ignores every write (the channel consumer's unit tests). */
import type { ChannelState, ChannelStateStore } from '../../src/core/channels/ports.js';

export function fixedChannelState(state: () => ChannelState): ChannelStateStore {
  return {
    channelState: async () => state(),
    listDevices: async () => [],
    putDevice: async () => true,
    deleteDevice: async () => undefined,
    putPushConsent: async () => undefined,
    deletePushConsent: async () => undefined,
    putEmailAddress: async () => undefined,
    deleteEmailAddress: async () => undefined,
    unsubscribeEmail: async () => undefined,
  };
}
