import net from 'node:net';

/**
 * Which client a socket address counts as, for throttling. Whoever can use
 * one loopback address can use them all (every 127.0.0.0/8 address, ::1 and
 * their IPv4-mapped forms reach the hub from the same machine), so all of
 * loopback is one client. Likewise whoever holds one IPv6 address usually
 * holds its whole /64, so that prefix is the client.
 */
export const LOOPBACK_CLIENT = 'loopback';

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function clientKeyOf(address: string | undefined): string {
  if (!address) return 'in-process';
  const bare = address.replace(/%.*$/, '');
  const family = net.isIPv4(bare) ? 'ipv4' : net.isIPv6(bare) ? 'ipv6' : undefined;
  if (!family) return bare;
  // BlockList checks IPv4-mapped IPv6 addresses (::ffff:127.0.0.2) against the IPv4 rules.
  if (loopback.check(bare, family)) return LOOPBACK_CLIENT;
  if (family === 'ipv4') return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, "::" expanded, as lowercase hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const part = (text: string): string[] => (text ? text.split(':') : []);
  // A trailing dotted IPv4 part stands for the last two groups.
  const expand = (groups: string[]): string[] =>
    groups.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = expand(part(head));
  const right = expand(part(tail ?? ''));
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
