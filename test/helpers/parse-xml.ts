import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface XmlElement {
  tag: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlElement[];
}

/** An XML file read by a real XML parser (Python's ElementTree, which refuses anything not well-formed), as JSON. */
export async function parseXml(file: string): Promise<XmlElement> {
  const script = [
    'import json, sys, xml.etree.ElementTree as ET',
    'def walk(e): return {"tag": e.tag, "attributes": dict(e.attrib), "text": e.text or "", "children": [walk(c) for c in e]}',
    'print(json.dumps(walk(ET.parse(sys.argv[1]).getroot())))',
  ].join('\n');
  const { stdout } = await promisify(execFile)('python3', ['-c', script, file]);
  return JSON.parse(stdout) as XmlElement;
}
