// The README's example ran against lanes resolved through the BOM from the released file repository.
def log = new File(basedir, 'build.log').getText('UTF-8')
assert log.contains('score 3') : 'the example did not print its score'
assert log.readLines().any { it.startsWith('db ') } : 'the table has no row for lane db'
['lanes-core', 'lanes-advisor'].each { a ->
  def marker = new File(basedir, "../../it-repo/dev/lanes/${a}/0.1.0/_remote.repositories")
  assert marker.isFile() : "${a} 0.1.0 was not resolved"
  assert marker.text.contains("${a}-0.1.0.jar>lanes-release=") : "${a} 0.1.0 came from elsewhere: ${marker.text}"
}
return true
