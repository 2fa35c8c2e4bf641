// Before libp2p, which calls Promise.withResolvers (Node 22+).
import './promise-with-resolvers.js';

/** The peer links: this hub's libp2p node, its links to the roster's other hubs, and what they carry (src/peer). */
export { PeerNode, type PeerNodeOptions, type RefusalReason } from './peer-node.js';
export { PeerLinks } from './peer-links.js';
export type { PeerLinksOptions } from './link-options.js';
export { LinksOnDemand } from './links-on-demand.js';
