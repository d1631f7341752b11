# Copies Debian's gopkg.in/yaml.v3 (3.0.1) into the reference's GOPATH and makes its literal and
# folded block scalars keep a leading newline, as the Go provider's sigs.k8s.io/yaml copy
# (go.yaml.in/yaml/v3 3.0.4) does: that version writes the line break after the block header
# itself instead of letting the content's first break stand in for it.
# Usage: cmake -DSOURCE=<yaml.v3 dir> -DDEST=<dir> -P patch_yaml.cmake
file(GLOB sources RELATIVE ${SOURCE} ${SOURCE}/*.go)
file(MAKE_DIRECTORY ${DEST})
foreach(f ${sources})
  if(NOT f MATCHES "_test\\.go$")
    configure_file(${SOURCE}/${f} ${DEST}/${f} COPYONLY)
  endif()
endforeach()
file(READ ${DEST}/emitterc.go text)
set(before "if !yaml_emitter_write_block_scalar_hints(emitter, value) {\n\t\treturn false\n\t}\n\tif !yaml_emitter_process_line_comment(emitter) {")
set(after "if !yaml_emitter_write_block_scalar_hints(emitter, value) {\n\t\treturn false\n\t}\n\tif len(emitter.line_comment) == 0 && !put_break(emitter) {\n\t\treturn false\n\t}\n\tif !yaml_emitter_process_line_comment(emitter) {")
string(FIND "${text}" "${before}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "patch_yaml.cmake: yaml.v3's block scalar writer is not where expected")
endif()
string(REPLACE "${before}" "${after}" text "${text}")
file(WRITE ${DEST}/emitterc.go "${text}")
