/**
 * Checks an HTTP answer against an OpenAPI 3.1 document with Ajv (JSON Schema 2020-12, the dialect of 3.1):
 * the path and method must be documented, the status listed, and a JSON body must match its schema.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class DocumentChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly paths: Array<{ template: string; pattern: RegExp }>;

  constructor(
    private readonly doc: Doc,
    private readonly id: string,
  ) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc, id);
    this.paths = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]*')}$`),
    }));
  }

  /**
   * Problems with one answer, empty when it matches the document: the path, method and status are documented,
   * the headers the document marks required are present, and a JSON body matches its schema (an answer the
   * document gives no body must have none). `path` is relative to the document's server.
   */
  check(method: string, path: string, status: number, body: string, contentType: string, headers: Record<string, string> = {}): string[] {
    const bare = path.split('?')[0]!;
    // A literal segment wins over a template one (/webhooks/trigger over /webhooks/{id}).
    const matches = this.paths.filter((p) => p.pattern.test(bare)).sort((a, b) => a.template.split('{').length - b.template.split('{').length);
    const template = matches[0]?.template;
    const what = `${method} ${bare} -> ${status}`;
    if (template === undefined) return [`${what}: path not documented`];
    const operation = this.doc.paths[template][method.toLowerCase()];
    if (operation === undefined) return [`${what}: method not documented`];
    let response = operation.responses[String(status)];
    let responsePointer = pointer('paths', template, method.toLowerCase(), 'responses', String(status));
    if (response === undefined) return [`${what}: status not documented (${Object.keys(operation.responses).join(', ')})`];
    if (typeof response.$ref === 'string') {
      responsePointer = response.$ref.slice(2);
      response = responsePointer.split('/').reduce((node: Doc, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    }
    const missing = Object.entries<Doc>(response.headers ?? {}).filter(([name, h]) => h.required === true && headers[name.toLowerCase()] === undefined);
    if (missing.length > 0) return [`${what}: documented header(s) missing: ${missing.map(([name]) => name).join(', ')}`];
    const documented = Object.keys(response.content ?? {});
    if (documented.length === 0) return body === '' ? [] : [`${what}: a body the document does not describe: ${body.slice(0, 200)}`];
    if (!documented.some((type) => contentType.startsWith(type))) return [`${what}: content-type "${contentType}", documented ${documented.join(', ')}`];
    if (!contentType.startsWith('application/json')) return [];
    const validate = this.ajv.getSchema(`${this.id}#/${responsePointer}/content/${pointer('application/json')}/schema`);
    if (validate === undefined) return [`${what}: schema not found`];
    if (validate(JSON.parse(body))) return [];
    return [`${what}: ${this.ajv.errorsText(validate.errors)} in ${body.slice(0, 300)}`];
  }

  /** Validates `value` against a schema at a JSON pointer of the document (e.g. a webhook body). */
  matches(schemaPointer: string, value: unknown): string[] {
    const validate = this.ajv.getSchema(`${this.id}#${schemaPointer}`);
    if (validate === undefined) return [`schema ${schemaPointer} not found`];
    return validate(value) ? [] : [this.ajv.errorsText(validate.errors)];
  }
}
