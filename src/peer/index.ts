/** The peer links: this hub's libp2p node and what it carries (src/peer). */
export { PeerNode, type PeerNodeOptions, type RefusalReason } from './peer-node.js';
