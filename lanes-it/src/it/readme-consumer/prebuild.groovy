// Builds the consumer from README.md: its dependency block into pom.xml, its example into Example.java.
def text = new File(readme).getText('UTF-8')

def block = { String marker, String lang ->
  int at = text.indexOf(marker)
  if (at < 0) throw new IllegalStateException("README.md has no ${marker} marker")
  String fence = '```' + lang + '\n'
  int start = text.indexOf(fence, at)
  if (start < 0) throw new IllegalStateException("README.md has no ${lang} block after ${marker}")
  start += fence.length()
  text.substring(start, text.indexOf('```', start))
}

def pom = new File(basedir, 'pom.xml')
String placeholder = '<!-- README: use-it-dependencies -->'
if (!pom.text.contains(placeholder)) throw new IllegalStateException('pom.xml lost its placeholder')
pom.setText(pom.getText('UTF-8').replace(placeholder, block('<!-- use-it-dependencies -->', 'xml')), 'UTF-8')

def src = new File(basedir, 'src/main/java')
src.mkdirs()
new File(src, 'Example.java').setText(block('<!-- readme-example -->', 'java'), 'UTF-8')
return true
