/**
 * Escape row that held: the network is off for UDP and DNS, not only TCP (TCP is in
 * `tool-path.test.ts` and `exec-layer.test.ts`). The host runs a UDP listener on 127.0.0.1; a
 * scripted model sends it a raw datagram (bash `/dev/udp`) and a DNS query (Node's resolver
 * pointed at the listener, so no real name server is involved and `localhost` from /etc/hosts
 * proves nothing). Confined, nothing may arrive; danger-full-access is the control. Assertions are
 * on what the host listener received only.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../helpers/engine.js';
import { execCall, requireBwrap, SafetyHarness } from '../safety/harness.js';
import { eachSandboxMode, listenUdp, type UdpListener } from './host.js';


let udp: UdpListener;

beforeAll(requireBwrap);
afterEach(async () => {
  await udp?.close();
});

/** A Node one-liner asking the resolver at 127.0.0.1:`port` for an A record, once, quickly. */
function dnsQuery(port: number): string {
  const script = [
    "const { Resolver } = require('node:dns').promises;",
    'const r = new Resolver({ timeout: 500, tries: 1 });',
    `r.setServers(['127.0.0.1:${port}']);`,
    "r.resolve4('escape-probe.example').then(() => console.log('answered'), (e) => console.log('dns', e.code));",
  ].join(' ');
  return `'${process.execPath}' -e "${script}"`;
}

eachSandboxMode(({ confined, can, harness, attack }) => {
  let h: SafetyHarness;
  beforeAll(() => {
    h = harness();
  });

  it(`${can('send a UDP datagram to a host listener on 127.0.0.1')}`, async () => {
    udp = await listenUdp();
    const thread = await h.startThread();
    await attack(thread, [execCall(`for i in 1 2 3; do echo escape-probe > /dev/udp/127.0.0.1/${udp.port}; done`)]);
    if (confined) {
      await udp.settle();
      expect(udp.received).toEqual([]);
    } else {
      await waitFor(() => udp.received.length > 0, 5_000, 'the host listener to receive the datagram');
      expect(udp.received[0]?.toString()).toBe('escape-probe\n');
    }
  });

  it(`${can('send a DNS query to a resolver on the host loopback')}`, async () => {
    udp = await listenUdp();
    const thread = await h.startThread();
    await attack(thread, [execCall(dnsQuery(udp.port))]);
    if (confined) {
      await udp.settle();
      expect(udp.received).toEqual([]);
    } else {
      await waitFor(() => udp.received.length > 0, 5_000, 'the host listener to receive the query');
      // A DNS query: 12-byte header, then the question naming escape-probe.example.
      expect(udp.received[0]?.subarray(12).toString('latin1')).toContain('escape-probe');
    }
  });
});
