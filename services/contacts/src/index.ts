export { contactsService } from './service';
export { contactsConfigSchema, readConfig, type ContactsConfig } from './config';
export { createApp } from './app';
export { operations } from './openapi';
