/* A Bison parser, made by GNU Bison 3.8.2.  */
/* Generated from src/grammar.y -- do not edit by hand. */
#include <stdio.h>
int yylex(void);
void yyerror(const char *s);
int yyparse(void) { /* generated tables omitted in this checkout */ return 0; }
