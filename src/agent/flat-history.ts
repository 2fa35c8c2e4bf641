import type { AssistantModelMessage, ModelMessage, ToolResultPart } from 'ai';
import { jsonForModel } from '../util/peer-text.js';

/**
 * The loop's history for a call that offers no tools — a relevance check, a
 * forked subagent (which has other tools than its parent): its tool calls and
 * tool results said in words. Anthropic and Bedrock refuse a request whose
 * messages hold tool_use or tool_result blocks without those tools defined,
 * and the call needs only to know what was done. A tool call becomes the
 * assistant's text "[called NAME with INPUT]", a tool result a user message
 * "[NAME returned: OUTPUT]", in the same order; every other part is kept.
 */
export function flatHistory(messages: readonly ModelMessage[]): ModelMessage[] {
  return messages.map((message) => {
    if (message.role === 'tool') {
      const results = message.content.filter((part): part is ToolResultPart => part.type === 'tool-result');
      return { role: 'user', content: results.map((part) => ({ type: 'text' as const, text: resultText(part) })) };
    }
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    const content: Exclude<AssistantModelMessage['content'], string> = [];
    for (const part of message.content) {
      if (part.type === 'tool-call') content.push({ type: 'text', text: `[called ${part.toolName} with ${JSON.stringify(part.input ?? {})}]` });
      else if (part.type === 'tool-result') content.push({ type: 'text', text: resultText(part) });
      else if (part.type !== 'tool-approval-request') content.push(part);
    }
    return { ...message, content };
  });
}

function resultText(part: ToolResultPart): string {
  return `[${part.toolName} returned: ${outputText(part.output)}]`;
}

function outputText(output: ToolResultPart['output']): string {
  switch (output.type) {
    case 'text':
      return output.value;
    case 'error-text':
      return `error: ${output.value}`;
    case 'json':
      return jsonForModel(output.value);
    case 'error-json':
      return `error: ${jsonForModel(output.value)}`;
    case 'execution-denied':
      return `denied${output.reason ? `: ${output.reason}` : ''}`;
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : `(${part.type})`)).join('\n');
  }
}
