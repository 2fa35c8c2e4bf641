/**
 * An AI SDK agent with Parley's middleware: every model call is given what
 * the team said since the last one, as its last message.
 *
 *   npm start                                  # a hub on ~/.parley (another terminal)
 *   npx parley join human --kind human && npx parley join coder-1
 *   npx parley dm coder-1 "the cache needs a TTL" --as human
 *   node dist/examples/ai-sdk-agent.js          # prints what the model was given
 *
 * The middleware finds the hub and coder-1's token the way the CLI does
 * (PARLEY_URL, PARLEY_TOKEN, or the home's running hub and kept tokens).
 */
import { generateText, wrapLanguageModel } from 'ai';
import { parleyMiddleware } from 'parley/middleware';
import { reportingModel } from './stand-in-models.js';

const parley = parleyMiddleware({ handle: 'coder-1' });
const model = wrapLanguageModel({
  model: reportingModel(), // your provider's model, e.g. openai('gpt-5')
  middleware: parley,
});

const { text } = await generateText({
  model,
  system: 'You are coder-1, building the cache layer of this project.',
  prompt: 'Carry on with your task.',
});
console.log(text);
parley.close();
