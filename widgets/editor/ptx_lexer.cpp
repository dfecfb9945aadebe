// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/editor/ptx_lexer.h"

#include <Qsci/qsciscintilla.h>

#include <QColor>
#include <QFont>
#include <QFontDatabase>

#include <vector>

namespace dice {

namespace {

bool isWordByte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '.';
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// Styles one line (without its end of line). A statement's first word is its opcode; one after
// a label or a guard on the same line is too.
void styleLine(const char* s, int n, char* styles) {
    bool first = true; // the next word is the statement's opcode (or a directive)
    int i = 0;
    while (i < n) {
        const char c = s[i];
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            for (; i < n; ++i)
                styles[i] = PtxLexer::Comment;
            return;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            const int from = i;
            i += 2;
            while (i < n && !(s[i - 1] == '*' && s[i] == '/'))
                ++i;
            i = i < n ? i + 1 : n;
            for (int k = from; k < i; ++k)
                styles[k] = PtxLexer::Comment;
            continue;
        }
        if (c == '@') {
            const int from = i++;
            if (i < n && s[i] == '!')
                ++i;
            if (i < n && s[i] == '%')
                ++i;
            while (i < n && isWordByte(s[i]))
                ++i;
            for (int k = from; k < i; ++k)
                styles[k] = PtxLexer::Guard;
            continue;
        }
        if (c == '%') {
            const int from = i++;
            while (i < n && isWordByte(s[i]))
                ++i;
            for (int k = from; k < i; ++k)
                styles[k] = PtxLexer::Register;
            first = false;
            continue;
        }
        if (c == ';' || c == '{' || c == '}') {
            styles[i++] = PtxLexer::Default;
            first = true;
            continue;
        }
        if (isDigit(c) || (c == '-' && i + 1 < n && isDigit(s[i + 1]) && !first)) {
            const int from = i++;
            while (i < n && (isWordByte(s[i]) && s[i] != '$'))
                ++i;
            for (int k = from; k < i; ++k)
                styles[k] = PtxLexer::Number;
            first = false;
            continue;
        }
        if (isWordByte(c)) {
            const int from = i;
            while (i < n && isWordByte(s[i]))
                ++i;
            PtxLexer::Style style = PtxLexer::Default;
            const bool definesLabel = first && i < n && s[i] == ':';
            if (definesLabel) {
                style = PtxLexer::Label;
                ++i;
            } else if (s[from] == '.') {
                style = PtxLexer::Directive;
            } else if (s[from] == '$') {
                style = PtxLexer::Label; // a branch target
            } else if (first) {
                style = PtxLexer::Instruction;
            }
            for (int k = from; k < i; ++k)
                styles[k] = static_cast<char>(style);
            // After a label a statement may follow on the same line; after a directive or an
            // opcode come operands.
            first = definesLabel;
            continue;
        }
        styles[i++] = PtxLexer::Default;
    }
}

} // namespace

QByteArray ptxStyles(const QByteArray& text) {
    QByteArray styles(text.size(), static_cast<char>(PtxLexer::Default));
    int lineStart = 0;
    for (int i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\n') {
            int end = i;
            if (end > lineStart && text[end - 1] == '\r')
                --end;
            styleLine(text.constData() + lineStart, end - lineStart, styles.data() + lineStart);
            lineStart = i + 1;
        }
    }
    return styles;
}

PtxLexer::PtxLexer(QObject* parent)
    : QsciLexerCustom(parent) {}

const char* PtxLexer::language() const {
    return "PTX";
}

QString PtxLexer::description(int style) const {
    switch (style) {
    case Default:
        return QStringLiteral("Default");
    case Comment:
        return QStringLiteral("Comment");
    case Directive:
        return QStringLiteral("Directive");
    case Instruction:
        return QStringLiteral("Instruction");
    case Register:
        return QStringLiteral("Register");
    case Guard:
        return QStringLiteral("Predicate guard");
    case Label:
        return QStringLiteral("Label");
    case Number:
        return QStringLiteral("Number");
    default:
        return QString();
    }
}

QColor PtxLexer::defaultColor(int style) const {
    switch (style) {
    case Comment:
        return QColor(0x00, 0x80, 0x00);
    case Directive:
        return QColor(0x80, 0x00, 0x80);
    case Instruction:
        return QColor(0x00, 0x00, 0xa0);
    case Register:
        return QColor(0x00, 0x70, 0x80);
    case Guard:
        return QColor(0xb0, 0x40, 0x00);
    case Label:
        return QColor(0xa0, 0x00, 0x00);
    case Number:
        return QColor(0x90, 0x60, 0x00);
    default:
        return QColor(0x20, 0x20, 0x20);
    }
}

QFont PtxLexer::defaultFont(int style) const {
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setBold(style == Instruction || style == Label);
    return font;
}

void PtxLexer::styleText(int start, int end) {
    QsciScintilla* view = editor();
    if (!view || end <= start)
        return;
    // Whole lines, so that a statement's first word is known.
    int line = 0, index = 0;
    view->lineIndexFromPosition(start, &line, &index);
    start = view->positionFromLineIndex(line, 0);
    std::vector<char> bytes(static_cast<std::size_t>(end - start) + 1, '\0');
    view->SendScintilla(QsciScintillaBase::SCI_GETTEXTRANGE, start, end, bytes.data());
    const QByteArray text(bytes.data(), end - start);
    const QByteArray styles = ptxStyles(text);
    startStyling(start);
    int run = 0;
    while (run < styles.size()) {
        int next = run;
        while (next < styles.size() && styles[next] == styles[run])
            ++next;
        setStyling(next - run, styles[run]);
        run = next;
    }
}

} // namespace dice
