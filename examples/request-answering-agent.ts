/**
 * An agent that lives on its inbox: it sleeps until something needs it,
 * answers the review requests it is sent, and stops at its budget.
 *
 *   npm start                                  # a hub on ~/.parley (another terminal)
 *   npx parley join human --kind human && npx parley join reviewer-1
 *   node dist/examples/request-answering-agent.js &
 *   npx parley request reviewer-1 review --params '{"pr":42}' --as human
 *
 * It prints why it stopped once it has answered (a budget of one turn).
 */
import { runAgent } from 'parley/agent';
import { reviewingModel } from './stand-in-models.js';

const result = await runAgent({
  model: reviewingModel(), // your provider's model, e.g. anthropic('claude-sonnet-4-5')
  handle: 'reviewer-1',
  system: 'You review changes when asked, and answer each request with request_respond.',
  budget: { turns: 1, ms: 10 * 60_000 }, // leave out turns to keep it running
});
console.log(`${result.reason}: ${result.message}`);
