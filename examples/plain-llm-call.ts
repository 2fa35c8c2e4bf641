/**
 * Parley around any LLM call, for code that does not use the AI SDK: the
 * same injection, reminder and commit-after-success as the middleware.
 *
 *   npm start                                  # a hub on ~/.parley (another terminal)
 *   npx parley join human --kind human && npx parley join coder-2
 *   npx parley dm coder-2 "can you look at the flaky test?" --as human
 *   node dist/examples/plain-llm-call.js
 */
import { withParley } from 'parley/middleware';
import { chatCompletion } from './stand-in-models.js';

// chatCompletion stands in for your LLM call, e.g. (request) => openai.chat.completions.create(request)
const complete = withParley(chatCompletion, { handle: 'coder-2' });

const answer = await complete({ model: 'any', messages: [{ role: 'user', content: 'Carry on with your task.' }] });
console.log(answer.choices[0]?.message.content);
complete.close();
