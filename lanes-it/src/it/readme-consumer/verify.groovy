// The README example ran in its own JVM and printed what it promises.
def log = new File(basedir, 'build.log').getText('UTF-8')
assert log.contains('score 3') : 'the example did not print its score'
assert log.contains('wait p99') : 'the example did not print the lanes table'
assert log.readLines().any { it.startsWith('db ') } : 'the table has no row for lane db'

// "Java 21 or newer at run time": the installed jar holds Java 21 class files (major version 65).
def repo = new File(basedir, '../../it-repo/dev/lanes/lanes-core')
def jar = repo.listFiles().collectMany { v -> v.listFiles().findAll { it.name ==~ /lanes-core-.*\d\.jar|lanes-core-.*SNAPSHOT\.jar/ } }
assert !jar.isEmpty() : "no lanes-core jar installed under ${repo}"
new java.util.zip.ZipFile(jar[0]).withCloseable { zip ->
  def bytes = zip.getInputStream(zip.getEntry('dev/lanes/Lane.class')).bytes
  int major = ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff)
  assert major == 65 : "dev/lanes/Lane.class is class file version ${major}, README says Java 21 (65)"
}
return true
