/** Where the CLI's commands find the hub: the client layer's rules, which the library follows too. */
export { givenHubUrl, hubUrl, provenHubUrl, type HubChoice } from '../client/hub-address.js';
export { liveHub, processAlive, type LiveHub } from '../client/live-hub.js';
