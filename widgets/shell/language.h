// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QTranslator;

namespace dice {

// Installs the translation for a language and swaps it at run time; every widget retranslates
// itself on the LanguageChange event Qt sends. "en" is the source language.
class Language : public QObject {
    Q_OBJECT
public:
    explicit Language(QObject* parent = nullptr);

    static QStringList available(); // "en", "ja"
    static QString displayName(const QString& code);
    // The language for a locale name such as "ja_JP.UTF-8": one we have, else "en".
    static QString fromLocale(const QString& localeName);

    // Returns false when the translation could not be loaded (the language stays as it was).
    bool apply(const QString& code);
    QString current() const { return m_current; }

Q_SIGNALS:
    void changed(const QString& code);

private:
    QTranslator* m_translator = nullptr;
    QTranslator* m_qtTranslator = nullptr;
    QString m_current = QStringLiteral("en");
};

} // namespace dice
