/** The chat page's entry: starts the engine worker and mounts the page. */
import { EngineClient } from '../engine/client';
import { pageEngineConfig, startChatPage } from './start-chat-page';

startChatPage(EngineClient.start(pageEngineConfig()));
